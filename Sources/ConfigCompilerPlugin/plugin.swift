import Foundation
import PackagePlugin

/// Compiles a target's `dnsward.conf` into `<Target>.generated.swift` with
/// `dnsward-confgen` before the target's sources are compiled.
///
/// The config and the files its `block-list` and `trust-anchor-file` lines
/// name are input files of the command, so editing one re-runs the
/// compiler; a config error fails the build with the parser's
/// `file:line: error: message`.
@main
struct ConfigCompilerPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
    guard let sourceTarget = target as? SourceModuleTarget else { return [] }
    let config = sourceTarget.directoryURL.appending(path: "dnsward.conf")
    let configPath = config.path(percentEncoded: false)
    guard FileManager.default.fileExists(atPath: configPath) else {
      Diagnostics.error("\(target.name): ConfigCompilerPlugin needs \(configPath) to compile")
      return []
    }
    let generated = context.pluginWorkDirectoryURL.appending(
      path: "\(target.name).generated.swift")
    return [
      .buildCommand(
        displayName: "Compiling \(target.name)/dnsward.conf",
        executable: try context.tool(named: "dnsward-confgen").url,
        arguments: [configPath, generated.path(percentEncoded: false)],
        inputFiles: [config] + blockListFiles(config),
        outputFiles: [generated])
    ]
  }

  /// The files named by `block-list PATH` and `trust-anchor-file PATH`
  /// lines, PATH relative to the config's folder (a rough tokenizer: the
  /// compiler itself reports errors).
  func blockListFiles(_ config: URL) -> [URL] {
    guard let text = try? String(contentsOf: config, encoding: .utf8) else { return [] }
    let folder = config.deletingLastPathComponent()
    return text.split(separator: "\n").compactMap { line in
      let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
      let tokens = code.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      guard tokens.count == 2, tokens[0] == "block-list" || tokens[0] == "trust-anchor-file"
      else { return nil }
      let path = String(tokens[1])
      return path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appending(path: path)
    }
  }
}
