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
  // Read before waiting: a full pipe would block the child.
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = error.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, outputData, String(decoding: errorData, as: UTF8.self))
}
