#!/usr/bin/env bash
# The Crypto module's DNSSEC verifications and hashes, side by side with
# OpenSSL on this machine, in one run (issue 28): verifications per second
# of RSA-2048 and RSA-4096 (e = 65537, SHA-256), ECDSA P-256 and P-384, and
# Ed25519, and hashing MB/s of SHA-1, SHA-256, SHA-384 and SHA-512 over
# 16 KiB blocks; the ratio is OpenSSL's rate over ours (2.00 = OpenSSL twice
# as fast). Machines are noisy: both are measured in the same run, one after
# the other, on the same CPU.
#
#   bash Tests/Benchmarks/crypto.sh
#   DURATION=5 bash Tests/Benchmarks/crypto.sh      # seconds per figure (2)
#   CALLGRIND=1 bash Tests/Benchmarks/crypto.sh     # + instructions per operation
#
# The keys and signatures are made here by openssl (a fresh key each run);
# crypto-bench.swift, compiled with Sources/Crypto by swiftc, checks
# that each verifies, and that with one bit flipped it does not, before it
# times it. CALLGRIND=1 counts instructions under valgrind: the program
# runs each job 1 and 11 times and the difference is divided by 10, so the
# start-up and the checks drop out. Instruction counts do not move with the
# machine's load; OpenSSL's are not counted (its speed loop is timed). The
# keys are fresh each run, so an ECDSA or Ed25519 count moves by a few
# percent with the scalars' bits.
#
# The program is a host build with -Osize, like the firmware's code but
# not Embedded and without link-time optimization. OpenSSL hashes with the
# CPU's SHA instructions where it has them (x86 SHA-NI, ARMv8 crypto);
# OPENSSL_ia32cap=:~0x20000000 turns them off on x86, for plain code
# against plain code.
#
# Needs swiftc, openssl, xxd; valgrind for CALLGRIND=1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"
DURATION=${DURATION:-2}
need openssl
need xxd
work_dir

# -Osize, as the firmware is built (Toolchain.cmake); SWIFT_OPT=-O for speed.
SWIFT_OPT=${SWIFT_OPT:--Osize}
step "building crypto-bench (swiftc $SWIFT_OPT, Sources/Crypto)"
swiftc "$SWIFT_OPT" -wmo -parse-as-library -module-name CryptoBench \
  "$ROOT/Tests/Benchmarks/crypto-bench.swift" "$ROOT"/Sources/Crypto/*.swift \
  -o "$WORK/crypto-bench" 2>"$WORK/build.log" || { cat "$WORK/build.log"; fail "build"; }

step "keys and signatures (openssl)"
hex() { xxd -p -c 100000 "$1" | tr -d '\n'; }
printf 'dnsward crypto benchmark: the signed data of one RRset' >"$WORK/message"
# der_signature_to_raw DER BYTES: the r || s of an ECDSA DER signature, each
# left-padded to BYTES.
der_signature_to_raw() {
  openssl asn1parse -inform DER -in "$1" | awk -v n="$2" '/INTEGER/ {
    value = $NF; sub(/^:/, "", value)
    while (length(value) < 2 * n) value = "0" value
    printf "%s", tolower(value) }'
}
: >"$WORK/jobs"
for curve in p256:prime256v1:sha256:32 p384:secp384r1:sha384:48; do
  IFS=: read -r name group digest size <<<"$curve"
  openssl ecparam -name "$group" -genkey -noout -out "$WORK/$name.pem" 2>/dev/null
  openssl ec -in "$WORK/$name.pem" -pubout -outform DER -out "$WORK/$name.pub" 2>/dev/null
  openssl dgst "-$digest" -binary -out "$WORK/$name.digest" "$WORK/message"
  openssl dgst "-$digest" -sign "$WORK/$name.pem" -out "$WORK/$name.sig" "$WORK/message"
  # The key is the DER's last 2 × size bytes: x || y after the 0x04.
  key=$(hex "$WORK/$name.pub" | tail -c $((4 * size)))
  echo "$name $(hex "$WORK/$name.digest") $(der_signature_to_raw "$WORK/$name.sig" "$size") $key" >>"$WORK/jobs"
done
openssl genpkey -algorithm ed25519 -out "$WORK/ed25519.pem" 2>/dev/null
openssl pkey -in "$WORK/ed25519.pem" -pubout -outform DER -out "$WORK/ed25519.pub"
openssl pkeyutl -sign -rawin -inkey "$WORK/ed25519.pem" -in "$WORK/message" -out "$WORK/ed25519.sig"
echo "ed25519 $(hex "$WORK/message") $(hex "$WORK/ed25519.sig") $(hex "$WORK/ed25519.pub" | tail -c 64)" >>"$WORK/jobs"
openssl dgst -sha256 -binary -out "$WORK/rsa.digest" "$WORK/message"
for bits in 2048 4096; do
  openssl genrsa -out "$WORK/rsa$bits.pem" -f4 "$bits" 2>/dev/null
  modulus=$(openssl rsa -in "$WORK/rsa$bits.pem" -noout -modulus | sed 's/^Modulus=//' | tr 'A-F' 'a-f')
  openssl dgst -sha256 -sign "$WORK/rsa$bits.pem" -out "$WORK/rsa$bits.sig" "$WORK/message"
  echo "rsa $(hex "$WORK/rsa.digest") $(hex "$WORK/rsa$bits.sig") $modulus 010001" >>"$WORK/jobs"
done
printf 'sha1\nsha256\nsha384\nsha512\n' >>"$WORK/jobs"

step "Crypto module, ${DURATION} s a figure"
DURATION=$DURATION "$WORK/crypto-bench" <"$WORK/jobs" >"$WORK/ours.txt"
cat "$WORK/ours.txt"

step "openssl speed, ${DURATION} s a figure"
# -mr: machine-readable lines: +F2:N:BITS:SIGN/S:VERIFY/S for RSA, +F4 (the
# same) for ECDSA, +F6:N:BITS:NAME:SIGN/S:VERIFY/S for EdDSA, and
# +F:N:NAME:BYTES/S for a hash (one block size with -bytes).
openssl speed -seconds "$DURATION" -mr rsa2048 rsa4096 ecdsap256 ecdsap384 ed25519 \
  >"$WORK/openssl-sign.txt" 2>/dev/null
for digest in sha1 sha256 sha384 sha512; do
  openssl speed -seconds "$DURATION" -mr -bytes 16384 -evp "$digest" 2>/dev/null |
    awk -F: -v name="$digest" '/^\+F:/ { printf "%s %.1f\n", name, $NF / 1e6 }'
done >"$WORK/openssl.txt"
awk -F: '
  /^\+F2:/ { printf "rsa%s %.1f\n", $3, $5 }
  /^\+F4:/ && $3 == 256 { printf "p256 %.1f\n", $5 }
  /^\+F4:/ && $3 == 384 { printf "p384 %.1f\n", $5 }
  /^\+F6:/ && $4 ~ /[Ee]d25519/ { printf "ed25519 %.1f\n", $6 }' "$WORK/openssl-sign.txt" >>"$WORK/openssl.txt"
cat "$WORK/openssl.txt"

if [[ ${CALLGRIND:-0} == 1 ]]; then
  need valgrind
  step "instructions per operation (callgrind, 11 runs minus 1, / 10)"
  : >"$WORK/instructions.txt"
  while read -r line; do
    # The program names the figure (rsa2048, rsa4096: from the key).
    for count in 1 11; do
      name=$(echo "$line" | COUNT=$count valgrind --tool=callgrind \
        --callgrind-out-file="$WORK/cg.$count" "$WORK/crypto-bench" 2>"$WORK/cg.log") ||
        { cat "$WORK/cg.log"; fail "callgrind ${line%% *}"; }
    done
    a=$(callgrind_annotate "$WORK/cg.1" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    b=$(callgrind_annotate "$WORK/cg.11" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    echo "$name $(((b - a) / 10))" >>"$WORK/instructions.txt"
  done <"$WORK/jobs"
fi

step "side by side (ratio: OpenSSL's rate over ours; a hash's instructions are per 16 KiB)"
printf '| %-8s | %14s | %14s | %6s | %14s |\n' operation "Crypto" "OpenSSL" ratio "instructions"
printf '| %-8s | %14s | %14s | %6s | %14s |\n' --- ---: ---: ---: ---:
while read -r name ours; do
  theirs=$(awk -v n="$name" '$1 == n { print $2 }' "$WORK/openssl.txt")
  instructions=$(awk -v n="$name" '$1 == n { print $2 }' "$WORK/instructions.txt" 2>/dev/null || true)
  unit=/s
  [[ $name == sha* ]] && unit=" MB/s"
  printf '| %-8s | %14s | %14s | %6s | %14s |\n' "$name" "$ours$unit" "${theirs:-?}$unit" \
    "$([[ -n $theirs ]] && ratio "$theirs" "$ours" || echo ?)" "${instructions:--}"
done <"$WORK/ours.txt"
