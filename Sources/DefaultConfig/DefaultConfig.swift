/// The configuration `swift run dnsward` uses when no `--config` is given.
///
/// `compiledSettings()` is defined in `DefaultConfig.generated.swift`, which
/// `ConfigCompilerPlugin` writes at build time from `dnsward.conf` in this
/// folder; edit that file, not the generated one.
