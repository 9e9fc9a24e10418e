// swift-tools-version:6.2
// dnsward — a hijack-resistant DNS forwarding proxy for small Linux routers.
// No package dependencies: everything here builds with the Swift toolchain alone.
// The one optional system library, mbedTLS (DoT/DoH), comes with the `TLS`
// trait: `swift build --traits TLS` (needs libmbedtls-dev).
import PackageDescription

// DNSWire, CompiledConfig, Engine, HTTPDNS, Platform and Transports must also compile
// in Embedded Swift (Sources/README.md, "Embedded Swift rules"): on the host
// they are plain Swift; Board/CMakeLists.txt compiles the same files with
// `-enable-experimental-feature Embedded`, and .ci/run checks it.
let package = Package(
  name: "dnsward",
  products: [
    .executable(name: "dnsward", targets: ["dnsward"]),
    .executable(name: "dnsward-confgen", targets: ["dnsward-confgen"]),
  ],
  traits: [
    .trait(
      name: "TLS",
      description: "DNS over TLS/HTTPS upstreams through the system's mbedTLS (libmbedtls-dev).")
  ],
  targets: [
    // Linux system headers and tiny static-inline shims (errno, macros).
    .target(name: "CLinux"),
    // Zero-copy DNS message views and writer. No imports.
    .target(name: "DNSWire"),
    // Signature checks for DNSSEC without a crypto library, allocation-free and
    // Embedded-clean: SHA-1, SHA-2, RSA PKCS#1 v1.5, ECDSA P-256/P-384, Ed25519.
    .target(name: "Crypto"),
    // The table types that a compiled dnsward.conf fills in. No imports but DNSWire.
    .target(name: "CompiledConfig", dependencies: ["DNSWire"]),
    // DNSSEC records, canonical form and proofs (RFC 4034, 4035, 5155), and the
    // validator, over Crypto.
    .target(name: "DNSSEC", dependencies: ["DNSWire", "Crypto", "CompiledConfig"]),
    // The resolver policy as a sans-I/O state machine. A firmware without
    // DNSSEC (-DDNSWARD_DNSSEC=OFF) builds it without the DNSSEC module.
    .target(name: "Engine", dependencies: ["DNSWire", "CompiledConfig", "DNSSEC"]),
    // The only layer that talks to Linux.
    .target(name: "Platform", dependencies: ["CLinux"]),
    // The HTTPDNS upstream protocol, sans I/O: HTTP/1.1 request, response
    // framing, and the API's JSON or text answer turned into a DNS response.
    .target(name: "HTTPDNS", dependencies: ["DNSWire", "CompiledConfig"]),
    // The system's mbedTLS; only imported (and so only linked) under the TLS trait.
    .systemLibrary(name: "CMbedTLS", path: "Sources/CMbedTLS"),
    // TLSSession over a connected non-blocking socket (mbedTLS, our own BIO).
    // Without the trait every file is empty (`#if TLS`).
    .target(
      name: "TLS",
      dependencies: [
        "Platform", "CLinux",
        .target(name: "CMbedTLS", condition: .when(traits: ["TLS"])),
      ],
      exclude: ["README.md"]),
    // Client listeners and upstream protocols driven by the epoll loop.
    .target(
      name: "Transports",
      dependencies: [
        "Platform", "Engine", "DNSWire", "CompiledConfig", "HTTPDNS",
        .target(name: "TLS", condition: .when(traits: ["TLS"])),
      ]),
    // dnsward.conf parser, validator and Swift generator. Uses String (never
    // compared or hashed), so the firmware can keep it for --config and --check.
    // Its README.md is the config reference.
    .target(
      name: "Config", dependencies: ["DNSWire", "CompiledConfig"], exclude: ["README.md"]),
    // The build-time compiler: dnsward.conf -> Swift source with static tables.
    .executableTarget(name: "dnsward-confgen", dependencies: ["Config"]),
    .plugin(
      name: "ConfigCompilerPlugin", capability: .buildTool(),
      dependencies: ["dnsward-confgen"], path: "Sources/ConfigCompilerPlugin"),
    // The default config, compiled into the binary by the plugin.
    .target(
      name: "DefaultConfig", dependencies: ["CompiledConfig"],
      exclude: ["dnsward.conf"],
      plugins: ["ConfigCompilerPlugin"]),
    .executableTarget(
      name: "dnsward",
      dependencies: [
        "Transports", "Platform", "Config", "DefaultConfig", "CompiledConfig", "DNSWire",
      ]),
    // What more than one test target needs: messages and hex as text, the query
    // builder and reply decoder, the process launcher, the binary under test, the
    // DNSSEC fixtures, test certificates, free ports, a seeded generator (Tests/README.md).
    .target(
      name: "TestSupport", dependencies: ["CompiledConfig", "DNSWire"], path: "Tests/TestSupport"),
    .testTarget(name: "DNSWireTests", dependencies: ["DNSWire", "TestSupport"]),
    .testTarget(
      name: "DNSSECTests",
      dependencies: ["DNSSEC", "DNSWire", "Crypto", "CompiledConfig", "TestSupport"],
      // The generator of ValidatorFixtures.swift (Knot DNS signed zones).
      exclude: ["make-fixtures.sh"]),
    .testTarget(name: "CryptoTests", dependencies: ["Crypto", "TestSupport"]),
    .testTarget(
      name: "HTTPDNSTests", dependencies: ["HTTPDNS", "DNSWire", "CompiledConfig", "TestSupport"]),
    // Real handshakes against `openssl s_server` with certificates made at test
    // time; empty without the trait: swift test --traits TLS --filter TLSTests
    .testTarget(
      name: "TLSTests",
      dependencies: ["TLS", "Platform", "CLinux", "TestSupport"],
      swiftSettings: [.swiftLanguageMode(.v5)]),
    .testTarget(name: "PlatformTests", dependencies: ["Platform", "CLinux", "TestSupport"]),
    .testTarget(
      name: "ConfigTests", dependencies: ["Config", "CompiledConfig", "DNSWire", "TestSupport"]),
    .testTarget(
      name: "EngineTests",
      dependencies: ["Engine", "DNSWire", "CompiledConfig", "Config", "TestSupport"]),
    .testTarget(
      name: "IntegrationTests",
      dependencies: ["dnsward", "dnsward-confgen", "DNSWire", "HTTPDNS", "TestSupport"],
      // Fake upstreams use threads and Foundation; Swift 5 mode keeps them simple.
      swiftSettings: [.swiftLanguageMode(.v5)]),
    // The simulated LAN (network namespaces, a lying ISP, dig/kdig/getent):
    // drives the real binary, so it only needs it built. Root only; skips elsewhere.
    .testTarget(
      name: "LANTests", dependencies: ["dnsward", "TestSupport"],
      swiftSettings: [.swiftLanguageMode(.v5)]),
  ]
)
