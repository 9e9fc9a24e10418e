// dnsward: the command line. Host builds accept --config and --check; the
// firmware (Embedded Swift) runs only on the config compiled into it.
import CompiledConfig
import DefaultConfig

#if hasFeature(Embedded)
  import CLinux  // exit(3); the host branch gets it from Glibc

  exit(serve(compiledSettings()))
#else
  import Config
  import Glibc

  /// Standard error by descriptor (the C `stderr` global is not concurrency-safe).
  func printError(_ text: String) {
    var line = text
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
  }

  func usage() -> Never {
    let text = """
      usage: dnsward [--config FILE]    run (default: the compiled-in dnsward.conf)
             dnsward --check FILE       validate FILE, print a summary, exit 0 or 1
             dnsward --print-config     print the summary of the compiled-in config

      """
    printError(text)
    exit(2)
  }

  func loadConfig(_ path: String) -> Settings {
    guard let file = fopen(path, "r") else {
      printError("dnsward: cannot open \(path): \(String(cString: strerror(errno)))\n")
      exit(1)
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = fread(&chunk, 1, chunk.count, file)
      if count == 0 { break }
      bytes.append(contentsOf: chunk[0..<count])
    }
    fclose(file)
    do {
      return try ConfigParser.parse(String(decoding: bytes, as: UTF8.self), fileName: path)
    } catch {
      printError("\(error.description)\n")
      exit(1)
    }
  }

  let arguments = Array(CommandLine.arguments.dropFirst())
  switch arguments.first {
  case nil:
    exit(serve(compiledSettings()))
  case "--config":
    guard arguments.count == 2 else { usage() }
    exit(serve(loadConfig(arguments[1])))
  case "--check":
    guard arguments.count == 2 else { usage() }
    print(ConfigGenerator.summary(loadConfig(arguments[1])))
    print("\(arguments[1]): OK")
    exit(0)
  case "--print-config":
    print(ConfigGenerator.summary(compiledSettings()))
    exit(0)
  default:
    usage()
  }
#endif
