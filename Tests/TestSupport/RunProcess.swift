import Foundation

/// Runs `executable` with `arguments`; its standard output, or a failure
/// with its standard error.
public func runProcess(_ executable: URL, _ arguments: [String]) throws -> (
  status: Int32, output: Data, error: String
) {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  let output = Pipe()
  let error = Pipe()
  process.standardOutput = output
  process.standardError = error
  try process.run()
  // Both pipes are read at once, before waiting: a child blocked on a full
  // standard error pipe would otherwise never finish its output.
  let errorText = CollectedText()
  let errorRead = DispatchGroup()
  errorRead.enter()
  DispatchQueue.global().async {
    errorText.set(error.fileHandleForReading.readDataToEndOfFile())
    errorRead.leave()
  }
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  errorRead.wait()
  process.waitUntilExit()
  return (process.terminationStatus, outputData, errorText.text)
}

/// What the standard error reader collected.
private final class CollectedText: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()

  func set(_ value: Data) { lock.withLock { data = value } }
  var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
