# Writes the benchmark's upstream zone and its dnsperf query files into DIR:
#
#   awk -v dir=DIR -f generate.awk
#
# Zone bench.test (served by Knot):
#   n0 ... n199999     A 10.x.y.z and AAAA 2001:db8::x:y, one pair per name
#   alias0 ... alias1999  a two-step CNAME chain: aliasK -> hopK -> nK
#   f0 ... f9999       A only: filler that brings a cache to its 10,000
#                      entries before a measurement
#   xK                 absent: the NXDOMAIN region (answered with the SOA,
#                      whose MINIMUM of 3600 s makes it negatively cacheable)
# Every TTL is 3600 s, so nothing expires during a run.
#
# Query files ("name type" per line, dnsperf's format):
#   hot.txt       1,000 questions: n0...n899 and alias0...alias99, A and
#                 AAAA alternating. Warmed before the run: all cache hits.
#   cold.txt      the 200,000 n-names, every one once with A and once with
#                 AAAA (400,000 distinct questions) before any repeats.
#   mixed.txt     1,000,000 lines: four hot questions, then one question
#                 drawn in order from n1000...n199999 (A/AAAA, 398,000
#                 distinct), repeating: 80% hits, 20% misses.
#   nxdomain.txt  1,000 questions for x0...x999, A and AAAA alternating.
#   fill.txt      10,000 questions for f0...f9999 (A), asked before the cache
#                 workloads so that each is measured against a full cache.
#   override.txt  1,000 questions for o0.ovr.lan...o999.ovr.lan, A and AAAA
#                 alternating; overrides.txt lists "name ipv4 ipv6" for the
#                 proxies' local-answer tables.
function v4(i) { return sprintf("10.%d.%d.%d", int(i / 65536), int(i / 256) % 256, i % 256) }
function v6(i) { return sprintf("2001:db8::%x:%x", int(i / 65536), i % 65536) }
function qtype(i) { return (i % 2) ? "AAAA" : "A" }
BEGIN {
  names = 200000; chains = 2000; hotNames = 900; hotAliases = 100
  zone = dir "/bench.test.zone"
  print "$ORIGIN bench.test." > zone
  print "$TTL 3600" > zone
  print "@ SOA ns.bench.test. hostmaster.bench.test. 1 3600 600 86400 3600" > zone
  print "@ NS ns.bench.test." > zone
  print "ns A 127.0.0.1" > zone
  for (i = 0; i < names; i++) {
    printf "n%d A %s\nn%d AAAA %s\n", i, v4(i), i, v6(i) > zone
  }
  for (k = 0; k < chains; k++) {
    printf "alias%d CNAME hop%d\nhop%d CNAME n%d\n", k, k, k, k > zone
  }
  fill = dir "/fill.txt"
  for (i = 0; i < 10000; i++) {
    printf "f%d A %s\n", i, sprintf("172.16.%d.%d", int(i / 256), i % 256) > zone
    printf "f%d.bench.test A\n", i > fill
  }
  close(zone); close(fill)

  hot = dir "/hot.txt"; n = 0
  for (j = 0; j < hotNames; j++) { line = "n" j ".bench.test " qtype(j); hotLine[n++] = line; print line > hot }
  for (k = 0; k < hotAliases; k++) { line = "alias" k ".bench.test " qtype(k); hotLine[n++] = line; print line > hot }
  close(hot)
  hotCount = n

  cold = dir "/cold.txt"
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < names; i++) printf "n%d.bench.test %s\n", i, qtype(i + pass) > cold
  close(cold)

  mixed = dir "/mixed.txt"; h = 0; m = 0
  missNames = names - hotNames - hotAliases
  for (line = 0; line < 1000000; line++) {
    if (line % 5 == 4) {
      pass = int(m / missNames); i = hotNames + hotAliases + (m % missNames)
      printf "n%d.bench.test %s\n", i, qtype(i + pass) > mixed
      m++
    } else {
      print hotLine[h % hotCount] > mixed
      h++
    }
  }
  close(mixed)

  nx = dir "/nxdomain.txt"
  for (j = 0; j < 1000; j++) printf "x%d.bench.test %s\n", j, qtype(j) > nx
  close(nx)

  ov = dir "/override.txt"; table = dir "/overrides.txt"
  for (j = 0; j < 1000; j++) {
    printf "o%d.ovr.lan %s\n", j, qtype(j) > ov
    printf "o%d.ovr.lan 10.200.%d.%d fd00::%x\n", j, int(j / 256), j % 256, j > table
  }
  close(ov); close(table)
}
