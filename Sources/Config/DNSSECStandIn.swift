// The DNSSEC directives' stand-in, for a firmware built without the
// validator (-DDNSWARD_DNSSEC=OFF): Board/CMakeLists.txt then leaves out
// Sources/Config/DNSSEC/ and defines DNSWARD_NO_DNSSEC, and these take its
// place: `dnssec off` is accepted, every other use of the four directives is
// refused at its line. The one place the Config module differs between the
// two builds.
#if DNSWARD_NO_DNSSEC
  import CompiledConfig

  /// Nothing to keep: no anchor is ever read.
  struct TrustAnchorReading {}

  extension ConfigReader {
    static let dnssecIsBuiltIn = false

    mutating func readDNSSECDirective(
      _ directive: Directive, value: ArraySlice<UInt8>, arguments: [ArraySlice<UInt8>], line: Int
    ) throws(LineError) {
      guard directive == .dnssec, ConfigValues.isWord(value, "off") else {
        throw LineError(
          "\(directive.name): this firmware was built without DNSSEC (-DDNSWARD_DNSSEC=ON)")
      }
    }

    mutating func finishTrustAnchors() throws(LineError) {}
  }

  extension Directive {
    var dnssecDeclaration: DirectiveDeclaration {
      switch self {
      // Only their names and defaults: the parser refuses them.
      case .dnssec: return .init("dnssec off|on|auto\ndefault off\nnot in this firmware")
      case .dnssecRoot: return .init("dnssec-root on|off\ndefault on\nnot in this firmware")
      case .trustAnchor: return .init("trust-anchor RR\nnot in this firmware", repeatable: true)
      case .trustAnchorFile:
        return .init("trust-anchor-file PATH\nnot in this firmware", repeatable: true)
      default: return .init("")
      }
    }
  }
#endif
