import Foundation
import XCTest

/// The path of the Swift compiler that runs the tests, if it can be found.
public func swiftCompiler() -> URL? {
  let environment = ProcessInfo.processInfo.environment
  var directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
  directories.append("/opt/swift/usr/bin")
  for directory in directories {
    let candidate = URL(fileURLWithPath: directory).appendingPathComponent("swiftc")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
  }
  return nil
}

/// Compiles `generated` (a `ConfigGenerator.swiftSource` output) with
/// `main`, the DNSWire and CompiledConfig sources and TestSupport's Hex.swift
/// (so `main` may use `hexString` and `hexBytes`) into one module, their
/// imports removed so that nothing but the compiler is needed; runs it with
/// `input` as its standard input, one line an element, and returns its
/// output lines. Nil after a test failure when it does not compile or run;
/// skips the test without a compiler.
public func runGeneratedSource(
  _ generated: String, main: String, input: [String] = [], file: StaticString = #filePath,
  line: UInt = #line
) throws -> [String]? {
  guard let swiftc = swiftCompiler() else { throw XCTSkip("swiftc not found") }
  func withoutImports(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("import ") }
      .joined(separator: "\n")
  }
  let work = FileManager.default.temporaryDirectory
    .appendingPathComponent("dnsward-generated-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: work) }
  var sources: [String] = []
  var files: [(folder: String, name: String)] = [("Tests/TestSupport", "Hex.swift")]
  for module in ["DNSWire", "CompiledConfig"] {
    let folder = "Sources/\(module)"
    for name in try FileManager.default.contentsOfDirectory(atPath: SourceTree.url(folder).path)
      .sorted() where name.hasSuffix(".swift")
    {
      files.append((folder, name))
    }
  }
  for (folder, name) in files {
    let text = try String(
      contentsOf: SourceTree.url(folder).appendingPathComponent(name), encoding: .utf8)
    let copy = work.appendingPathComponent(
      "\(folder.split(separator: "/").last!)-\(name)")
    try withoutImports(text).write(to: copy, atomically: true, encoding: .utf8)
    sources.append(copy.path)
  }
  let generatedFile = work.appendingPathComponent("Generated.swift")
  try withoutImports(generated).write(to: generatedFile, atomically: true, encoding: .utf8)
  let mainFile = work.appendingPathComponent("main.swift")
  try main.write(to: mainFile, atomically: true, encoding: .utf8)
  let probe = work.appendingPathComponent("probe")
  let compile = try runProcess(
    swiftc,
    ["-Onone", "-module-name", "Probe", "-o", probe.path, generatedFile.path, mainFile.path]
      + sources)
  XCTAssertEqual(compile.status, 0, compile.error, file: file, line: line)
  guard compile.status == 0 else { return nil }
  let inputFile = work.appendingPathComponent("input")
  try input.map { $0 + "\n" }.joined().write(to: inputFile, atomically: true, encoding: .utf8)
  let result = try runProcess(
    URL(fileURLWithPath: "/bin/sh"), ["-c", "'\(probe.path)' < '\(inputFile.path)'"])
  XCTAssertEqual(result.status, 0, result.error, file: file, line: line)
  guard result.status == 0 else { return nil }
  return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
}
