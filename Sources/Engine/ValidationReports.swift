#if !DNSWARD_NO_DNSSEC
  import CompiledConfig
  import DNSSEC
  import DNSWire

  /// A bogus answer is logged once per zone (issue 18): an upstream that
  /// strips signatures, or a path that alters a zone's data, would
  /// otherwise write a warning for every name asked. The zone is found from
  /// what failed:
  /// - the signer of the answer's first RRSIG, when it has one (data changed
  ///   on the way, a signature expired, a wrong key);
  /// - without any RRSIG (stripped on the way), the closest enclosing zone
  ///   known signed: a trust anchor's, or one the chain of trust proved
  ///   signed — a secure DNSKEY answer, or a secure DS answer holding DS
  ///   records, cached for it (RFC 4035 §5.2);
  /// - else the root.
  /// A zone is logged again once 16 others have been (`isNewBogus`).
  extension Engine {
    /// A slice of `reply`'s bytes or of `name` (flat, lower-cased), valid
    /// while they are.
    func bogusZone(_ reply: Message?, name: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
      if let reply {
        var records = reply.records()
        while let record = records.next(), record.offset < reply.additionalOffset {
          if let rrsig = RRSIGRecord(record, in: reply) { return rrsig.signerName }
        }
      }
      var position = 0
      while position < name.count, name[position] != 0 {
        let suffix = UnsafeRawBufferPointer(rebasing: name[position...])
        if provenSigned(suffix, .dnskey) || provenSigned(suffix, .ds) || isTrustAnchor(suffix) {
          return suffix
        }
        position += 1 + Int(name[position])
      }
      return UnsafeRawBufferPointer(rebasing: name[max(name.count - 1, 0)...])
    }

    /// Whether a `trust-anchor` (or the root's) is for `name`.
    func isTrustAnchor(_ name: UnsafeRawBufferPointer) -> Bool {
      settings.trustAnchors.withIterator { anchors in
        while let anchor = anchors.next() {
          if Name.equalIgnoringCase(anchor.owner, name) { return true }
        }
        return false
      }
    }

    /// Whether the cache holds a secure, non-empty answer to (`name`,
    /// `type`) as the chain fetches stored it. Not counted as a use.
    func provenSigned(_ name: UnsafeRawBufferPointer, _ type: RRType) -> Bool {
      guard
        let number = cache.find(
          name: name, type: type, rrClass: .internet, keyFlags: PacketCache.doBit),
        cache.validation(number) == Self.secureState,
        let message = try? Message(validating: cache.storedMessage(number))
      else { return false }
      return message.answerCount > 0
    }

    /// Reports `slot`'s bogus answer unless its zone was among the last ones
    /// reported.
    func reportBogus<E: EngineEnvironment>(
      _ reply: Message?, slot: Int, error: ExtendedDNSError, environment: inout E
    ) {
      let upstream = Int(transactions[slot].upstream)
      guard upstream >= 0, upstream < upstreams.count else { return }
      let name = self.name(slot: slot)
      let zone = bogusZone(reply, name: name)
      guard validations.isNewBogus(nameHash(zone)) else { return }
      environment.reportBogus(
        name: name, zone: zone, extendedError: error.rawValue, upstream: upstream)
    }
  }
#endif
