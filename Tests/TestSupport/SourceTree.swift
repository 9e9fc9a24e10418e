import Foundation

/// Paths in the package's source tree, for tests that read or compile its
/// files. They hold while the tests run from the checkout they were built
/// from (SwiftPM records each file's absolute path).
public enum SourceTree {
  /// The package's root directory: this file is Tests/TestSupport/SourceTree.swift.
  public static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The file at `path`, relative to the package's root.
  public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }
}

/// A new empty directory under the temporary directory, named `prefix` and
/// a UUID; the caller removes it.
public func makeScratchDirectory(_ prefix: String) throws -> URL {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "\(prefix)-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}
