import Foundation

/// A test CA and leaf certificates from it, made by openssl in a directory
/// of their own (one per user: a suite that removes its set when it ends
/// must not pull another suite's from under it):
/// `ca.pem`; `good` (dns.test), `expired` (dns.test, notAfter in the past),
/// `other` (other.test), `rogue` (dns.test from an unrelated CA, as a man in
/// the middle would show), each `.pem` and `.key`; and `good.pin`, good's
/// RFC 7469 pin, computed by openssl independently of the code under test.
public final class TestCertificates: Sendable {
  public let directory: URL

  /// Makes the set in a temporary directory named `name` and the process
  /// ID; nil if openssl is missing or fails.
  public init?(name: String) {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-\(getpid())")
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return nil }
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
    let ca =
      "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign"
    let script = """
      set -e
      cd '\(directory.path)'
      openssl req -x509 \(ec) -keyout ca.key -out ca.pem -days 30 -subj '/CN=dnsward test CA' \(ca)
      openssl req -x509 \(ec) -keyout rogue-ca.key -out rogue-ca.pem -days 30 -subj '/CN=rogue CA' \(ca)
      leaf() { # name cn days ca
        openssl req \(ec) -keyout $1.key -out $1.csr -subj "/CN=$2"
        printf 'subjectAltName=DNS:%s\\n' "$2" > $1.ext
        openssl x509 -req -in $1.csr -CA $4.pem -CAkey $4.key -CAcreateserial -days $3 \\
          -extfile $1.ext -out $1.pem
      }
      leaf good dns.test 30 ca
      leaf expired dns.test -1 ca
      leaf other other.test 30 ca
      leaf rogue dns.test 30 rogue-ca
      openssl x509 -in good.pem -pubkey -noout | openssl pkey -pubin -outform der \\
        | openssl dgst -sha256 -binary | base64 > good.pin
      """
    let result = try? runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
    guard result?.status == 0 else { return nil }
  }

  /// The path of file `name` in the set's directory.
  public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// `sha256/BASE64` of good.pem's public key, as the config's `pin=` takes it.
  public var goodPin: String {
    let text = (try? String(contentsOfFile: path("good.pin"), encoding: .utf8)) ?? ""
    return "sha256/" + text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Removes the directory and everything in it.
  public func remove() { try? FileManager.default.removeItem(at: directory) }
}
