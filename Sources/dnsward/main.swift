// dnsward: the command line, the same in the host build and the firmware.
//
//   dnsward                   run on the config compiled into the binary
//   dnsward --config FILE     run on FILE instead
//   dnsward --check FILE      validate FILE, print a summary, exit 0 or 1
//   dnsward --print-config    print the summary of the compiled-in config
//   dnsward --help-config     print the reference of the config language
//   dnsward stats [--json] [ADDR]  print a running dnsward's statistics (StatsCommand.swift)
//   dnsward --version         version, release date, target and features (Release)
//
// A firmware built with -DDNSWARD_RUNTIME_CONFIG=OFF (DNSWARD_COMPILED_CONFIG_ONLY)
// leaves the config language out and runs only on its compiled-in config.
import CompiledConfig
import DefaultConfig
import Platform
import Transports

#if !DNSWARD_COMPILED_CONFIG_ONLY
  import Config
#endif

func usage() -> Never {
  #if DNSWARD_COMPILED_CONFIG_ONLY
    let text: StaticString = """
      usage: dnsward                   run on the compiled-in config
             dnsward stats [--json] [ADDR]  statistics of a running dnsward (127.0.0.1:53)
             dnsward --version         version, release date, target and features

      (this build runs only on its compiled-in config)

      """
  #else
    let text: StaticString = """
      usage: dnsward                   run on the compiled-in config
             dnsward --config FILE     run on FILE
             dnsward --check FILE      validate FILE, print a summary, exit 0 or 1
             dnsward --print-config    summary of the compiled-in config
             dnsward --help-config     every directive of the config language
             dnsward stats [--json] [ADDR]  statistics of a running dnsward (127.0.0.1:53)
             dnsward --version         version, release date, target and features

      """
  #endif
  ProcessControl.printError(bytes(text))
  ProcessControl.exit(2)
}

/// The bytes of a literal, for `ProcessControl.printOutput`/`printError`
/// (a `String` literal's `utf8` would bring `String` code into the firmware).
func bytes(_ text: StaticString) -> [UInt8] {
  text.withUTF8Buffer { Array($0) }
}

func isFlag(_ argument: [UInt8], _ flag: StaticString) -> Bool {
  flag.withUTF8Buffer { argument.elementsEqual($0) }
}

#if !DNSWARD_COMPILED_CONFIG_ONLY
  /// A config larger than this is refused rather than read (a 100,000-entry
  /// block list is about 3 MB).
  let configSizeLimit = 64 << 20

  /// A `block-list` file larger than this is refused (a million names take
  /// about 25 MB).
  let blockListSizeLimit = 256 << 20

  /// A `block-list` file's contents, for the parser.
  func readBlockList(_ path: [UInt8]) -> Result<[UInt8], ConfigFileError> {
    do throws(Files.ReadError) {
      let contents = try Files.contents(path: path, limit: blockListSizeLimit + 1)
      guard contents.count <= blockListSizeLimit else {
        return .failure(.larger(thanMebibytes: blockListSizeLimit >> 20))
      }
      return .success(contents)
    } catch {
      switch error {
      case .system(let code) where code == Errno.noSuchFile:
        return .failure(ConfigFileError("no such file"))
      case .system(let code):
        return .failure(.system(errno: Int(code.rawValue)))
      case .notPrivate:
        return .failure(ConfigFileError("not a private file"))
      }
    }
  }

  /// FILE parsed (and into `lines`, the lines the summary names), or nil
  /// after `report` got the parser's `file:line: message` (or that FILE
  /// cannot be read, after `unreadablePrefix`). A skipped `for-list` line
  /// goes to `skipped`.
  func parseConfig(
    _ path: [UInt8], lines: inout SourceLines, unreadablePrefix: [UInt8] = [],
    report: ([UInt8]) -> Void, skipped: ([UInt8]) -> Void
  ) -> Settings? {
    guard let contents = Files.read(path: path, limit: configSizeLimit) else {
      report(unreadablePrefix + bytes("cannot read ") + path)
      return nil
    }
    do throws(ConfigError) {
      let settings = try ConfigParser.parse(
        bytes: contents, fileName: path, readFile: readBlockList, lines: &lines)
      // A bad line of a `for-list` (data fetched from elsewhere) is skipped:
      // the rest of the list and the config are served.
      for line in lines.skippedListLines {
        skipped(line.descriptionBytes + bytes(" (line skipped)"))
      }
      return settings
    } catch {
      report(error.descriptionBytes)
      return nil
    }
  }

  /// FILE parsed, or the error on stderr and exit status 1 (start-up,
  /// `--check`).
  func loadConfig(_ path: [UInt8], lines: inout SourceLines) -> Settings {
    let print: ([UInt8]) -> Void = { ProcessControl.printError($0 + [0x0A]) }
    guard
      let settings = parseConfig(
        path, lines: &lines, unreadablePrefix: bytes("dnsward: "), report: print, skipped: print)
    else {
      ProcessControl.exit(1)
    }
    return settings
  }

  /// FILE read again for a reload (SIGHUP): errors go to the log, and nil
  /// keeps the running config.
  func rereadConfig(_ path: [UInt8], log: LogLine) -> Settings? {
    var lines = SourceLines()
    return parseConfig(
      path, lines: &lines, report: { log.start(.error).append($0).emit(.error) },
      skipped: { log.start(.warning).append($0).emit(.warning) })
  }
#endif

let arguments = ProcessControl.arguments()
if arguments.isEmpty {
  // SIGHUP: the compiled-in config again, with the files it names.
  ProcessControl.exit(
    serve(
      compiledSettings(), reload: ReloadSource(configPath: [], read: { _ in compiledSettings() })))
}
if arguments.count == 1 && isFlag(arguments[0], "--version") {
  var line = [UInt8](repeating: 0x0A, count: Release.descriptionCapacity + 1)
  let length = line.withUnsafeMutableBytes { Release.copyDescription(into: $0) }
  ProcessControl.printOutput(Array(line[0...length]))
  ProcessControl.exit(0)
}
if arguments.count <= 3 && isFlag(arguments[0], "stats") {
  ProcessControl.exit(StatsCommand.run(arguments.dropFirst()))
}
#if !DNSWARD_COMPILED_CONFIG_ONLY
  if arguments.count == 2 && isFlag(arguments[0], "--config") {
    var lines = SourceLines()
    let path = arguments[1]
    ProcessControl.exit(
      serve(
        loadConfig(path, lines: &lines),
        reload: ReloadSource(configPath: path, read: { rereadConfig(path, log: $0) })))
  } else if arguments.count == 2 && isFlag(arguments[0], "--check") {
    var lines = SourceLines()
    let settings = loadConfig(arguments[1], lines: &lines)
    ProcessControl.printOutput(ConfigGenerator.summaryBytes(settings, lines: lines))
    ProcessControl.printOutput(arguments[1] + bytes(": OK\n"))
    ProcessControl.exit(0)
  } else if arguments.count == 1 && isFlag(arguments[0], "--print-config") {
    ProcessControl.printOutput(ConfigGenerator.summaryBytes(compiledSettings()))
    ProcessControl.exit(0)
  } else if arguments.count == 1 && isFlag(arguments[0], "--help-config") {
    ProcessControl.printOutput(ConfigReference.bytes)
    ProcessControl.exit(0)
  }
#endif
usage()
