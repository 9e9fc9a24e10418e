import CLinux

/// The process's command line and exit, the same way in the host build and
/// the firmware (Embedded Swift has no `CommandLine`).
public enum ProcessControl {
  /// The arguments after the program name, as bytes, from
  /// /proc/self/cmdline (NUL-separated; qemu-user presents the guest's).
  public static func arguments() -> [[UInt8]] {
    guard let text = Files.read(path: Array("/proc/self/cmdline".utf8)) else { return [] }
    var result: [[UInt8]] = []
    var current: [UInt8] = []
    for byte in text {
      if byte == 0 {
        result.append(current)
        current = []
      } else {
        current.append(byte)
      }
    }
    if !current.isEmpty { result.append(current) }
    return Array(result.dropFirst())
  }

  /// Writes bytes to standard error as they are.
  public static func printError(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { _ = CLinux.write(2, $0.baseAddress, $0.count) }
  }

  public static func exit(_ status: Int32) -> Never {
    CLinux.exit(status)
  }
}
