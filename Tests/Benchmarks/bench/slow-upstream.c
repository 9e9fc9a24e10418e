/*
 * A deliberately slow upstream for the overload benchmark: a UDP "DNS
 * server" on 127.0.0.1:PORT that answers every query DELAY_MS milliseconds
 * after it arrived. An A question gets one record, 192.0.2.1 with TTL 300
 * (for any name); any other type gets NODATA. The question comes back
 * byte for byte (0x20 letter case included); EDNS is dropped.
 *
 *   gcc -O2 -o slow-upstream slow-upstream.c && ./slow-upstream PORT DELAY_MS
 *
 * With a ring of N slots in front of it, a forwarder can have at most N
 * questions here at once, so it forwards at most N / DELAY answers a
 * second: the capacity an overload test exceeds many times over. Queries
 * wait in a fixed queue of QUEUE entries (oldest first; when full, new ones
 * are dropped and counted). SIGTERM ends it after printing its counters.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "udp.h"
#include <time.h>

#define QUEUE 8192
#define MAX_QUERY 512

struct pending {
  uint64_t due;
  struct sockaddr_in peer;
  uint16_t length;
  unsigned char bytes[MAX_QUERY + 16];
};

static struct pending queue[QUEUE];
static unsigned head, tail; /* head: oldest; tail: next free; count = tail - head */
static volatile sig_atomic_t stopping;

static void on_signal(int signal) {
  (void)signal;
  stopping = 1;
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Turns the query in `p` into its answer in place; returns the length, or 0
 * when it is not a well-formed single question. */
static size_t answer(struct pending *p) {
  unsigned char *m = p->bytes;
  size_t at = 12;
  if (p->length < 17 || m[2] & 0x80) return 0;
  if (((size_t)m[4] << 8 | m[5]) != 1) return 0;
  while (at < p->length && m[at] != 0) {
    if (m[at] > 63) return 0;
    at += (size_t)m[at] + 1;
  }
  at += 5; /* the root label, type, class */
  if (at > p->length) return 0;
  int isA = m[at - 4] == 0 && m[at - 3] == 1;
  m[2] = (unsigned char)(0x80 | (m[2] & 0x79)); /* QR, opcode, RD kept; AA, TC off */
  m[3] = 0x80;                                  /* RA, NOERROR */
  m[6] = 0;
  m[7] = isA ? 1 : 0;
  memset(m + 8, 0, 4); /* no authority, no additional (EDNS dropped) */
  if (!isA) return at;
  static const unsigned char record[] = {
      0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0x01, 0x2C, 0, 4, 192, 0, 2, 1,
  };
  memcpy(m + at, record, sizeof record);
  return at + sizeof record;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s PORT DELAY_MS\n", argv[0]);
    return 2;
  }
  uint64_t delay = (uint64_t)atoi(argv[2]);
  int fd = bind_loopback_udp(argv[1]);
  if (fd < 0) return 1;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  unsigned long long received = 0, answered = 0, dropped = 0;
  while (!stopping) {
    int timeout = -1;
    if (tail != head) {
      uint64_t now = now_ms(), due = queue[head % QUEUE].due;
      timeout = due > now ? (int)(due - now) : 0;
    }
    struct pollfd watch = {.fd = fd, .events = POLLIN};
    int ready = poll(&watch, 1, timeout);
    if (ready < 0 && errno != EINTR) {
      perror("poll");
      return 1;
    }
    uint64_t now = now_ms();
    if (ready > 0) {
      for (;;) { /* drain what arrived */
        struct pending *p = &queue[tail % QUEUE];
        socklen_t peerLength = sizeof p->peer;
        ssize_t length = recvfrom(fd, p->bytes, MAX_QUERY, MSG_DONTWAIT,
                                  (struct sockaddr *)&p->peer, &peerLength);
        if (length < 0) break;
        received++;
        if (tail - head == QUEUE) {
          dropped++;
          continue;
        }
        p->length = (uint16_t)length;
        p->due = now + delay;
        tail++;
      }
    }
    while (tail != head && queue[head % QUEUE].due <= now) {
      struct pending *p = &queue[head % QUEUE];
      size_t length = answer(p);
      if (length > 0 &&
          sendto(fd, p->bytes, length, 0, (struct sockaddr *)&p->peer, sizeof p->peer) > 0) {
        answered++;
      }
      head++;
    }
  }
  fprintf(stderr, "slow-upstream: received %llu answered %llu dropped %llu\n", received,
          answered, dropped);
  return 0;
}
