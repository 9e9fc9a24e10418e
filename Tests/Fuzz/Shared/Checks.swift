// What every libFuzzer target uses; .ci/fuzz.sh compiles this folder with
// each target (Tests/Fuzz/TARGET.swift).

/// Traps with `message` (libFuzzer saves the input) unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError(message()) }
}

/// `text` ("www.example.com") as a flat wire name, case kept.
func flat(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  for label in text.split(separator: ".") {
    out.append(UInt8(label.utf8.count))
    out += Array(label.utf8)
  }
  return out + [0]
}
