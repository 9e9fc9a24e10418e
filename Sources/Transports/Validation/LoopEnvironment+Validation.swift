import Engine
import Platform

// Left out of a firmware without the validator (Board/CMakeLists.txt), where
// the engine never reports a bogus answer and the protocol's default serves.
extension LoopEnvironment {
  /// A bogus answer, once per zone among the last 16 and at most 16 lines
  /// a minute (the engine's rule, ValidationReports.swift):
  /// `upstream U: DNSSEC validation failed for NAME (zone Z, EDE 10 RRSIGs
  /// missing): SERVFAIL; further failures in Z not logged for now`.
  func reportBogus(
    name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer, extendedError: UInt16,
    upstream: Int
  ) {
    let log = context.log
    guard log.enabled(.warning) else { return }
    log.start(.warning).append("upstream ").append(address: context.upstreamAddresses[upstream])
    log.append(": DNSSEC validation failed for ")
    formatName(name)
    log.append(" (zone ")
    formatName(zone)
    log.append(", EDE ").append(decimal: UInt64(extendedError))
    switch extendedError {
    case 1: log.append(" unsupported DNSKEY algorithm")
    case 5: log.append(" indeterminate")
    case 6: log.append(" bogus")
    case 7: log.append(" signature expired")
    case 8: log.append(" signature not yet valid")
    case 9: log.append(" DNSKEY missing")
    case 10: log.append(" RRSIGs missing")
    case 12: log.append(" NSEC missing")
    default: break
    }
    log.append("): SERVFAIL; further failures in that zone not logged for now")
    log.emit(.warning)
  }
}
