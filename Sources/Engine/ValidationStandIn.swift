// The validation stage's stand-in, for a firmware built without the
// validator (-DDNSWARD_DNSSEC=OFF): Board/CMakeLists.txt then leaves out
// Sources/Engine/Validation/ and defines DNSWARD_NO_DNSSEC, and these take
// its place. The engine calls the stage the same way in both builds; here
// nothing is validated, so every answer goes the unvalidated way and the
// optimizer removes the calls. This is the one place the engine's source
// differs between the two.
#if DNSWARD_NO_DNSSEC
  import CompiledConfig
  import DNSWire

  /// No pool and no per-slot state: nothing waits for a chain.
  struct ValidationPool {
    init(mode: DNSSECMode, inflight: Int, hashKey: HashKey) {}
    func validates(_ transaction: Transaction, dnssec: Bool) -> Bool { false }
    var capacity: Int { 0 }
    var earliestDeadline: UInt64? { nil }
    func state(of slot: Int) -> UInt8 { 0 }
    func isSecure(_ slot: Int) -> Bool { false }
    func secureTTL(of slot: Int) -> UInt32 { .max }
    static func validatedTTL(_ ttl: UInt32, state: UInt8, secureTTL: UInt32) -> UInt32 { ttl }
    func note(state: UInt8, slot: Int) {}
    func release(slot: Int) {}
    func strips(dnssecOK: Bool, type: RRType, dnssec on: Bool) -> Bool { false }
    func stripDNSSECRecords(in output: UnsafeMutableRawBufferPointer) -> Int { output.count }
    func capTTLs(in output: UnsafeMutableRawBufferPointer, to limit: UInt32) {}
    static func dnssecDiffers(under settings: Settings, from running: Settings) -> Bool { false }
  }

  extension Engine {
    static let secureState: UInt8 = 1
    static let insecureState: UInt8 = 2
    static let validationIsBuiltIn = false

    public func answersAHeavyValidationClient(transaction slot: Int) -> Bool { false }

    func expirePendingValidations<E: EngineEnvironment>(now: UInt64, environment: inout E) {}
    func failPendingAtShutdown<E: EngineEnvironment>(now: UInt64, environment: inout E) {}
    func isSecureBeforeHold<E: EngineEnvironment>(
      _ reply: Message, slot: Int, now: UInt64, environment: inout E
    ) -> Bool { false }
    func validateAccepted<E: EngineEnvironment>(
      _ reply: Message, slot: Int, now: UInt64, environment: inout E
    ) {}
    func resumeValidations<E: EngineEnvironment>(
      awaiting fetch: Int, answer: Message? = nil, now: UInt64, environment: inout E
    ) {}
    func judgeDNSSECProbe<E: EngineEnvironment>(
      _ reply: Message, slot: Int, isFailure: Bool, now: UInt64, environment: inout E
    ) {}
    func restartDNSSECProbes(now: UInt64) {}
    func reconfigureDNSSECProbes() {}
    func answerValidatedEntry<E: EngineEnvironment>(
      _ number: Int, query: Message, name: UnsafeRawBufferPointer, client: ClientRef,
      stale: Bool, now: UInt64, environment: inout E
    ) -> Bool? { nil }
  }
#endif
