/*
 * The benchmark's floor: a UDP "DNS server" that does nothing but the two
 * system calls every answer needs. Each datagram arriving on
 * 127.0.0.1:PORT goes straight back to its sender with the same bytes and
 * the QR (response) bit set, so dnsperf counts it as a NOERROR answer.
 *
 *   gcc -O2 -o echo echo.c && ./echo PORT
 *
 * One blocking recvfrom and one sendto per query, no epoll, no parsing: the
 * CPU it spends per query is what the kernel's loopback UDP path alone
 * costs on this machine.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "udp.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PORT\n", argv[0]);
    return 2;
  }
  int fd = bind_loopback_udp(argv[1]);
  if (fd < 0) return 1;
  static unsigned char packet[65536];
  for (;;) {
    struct sockaddr_in peer;
    socklen_t peerLength = sizeof peer;
    ssize_t length = recvfrom(fd, packet, sizeof packet, 0, (struct sockaddr *)&peer, &peerLength);
    if (length < 0) {
      if (errno == EINTR) continue;
      perror("recvfrom");
      return 1;
    }
    if (length < 12) continue; /* shorter than a DNS header: not a query */
    packet[2] |= 0x80;
    (void)sendto(fd, packet, (size_t)length, 0, (struct sockaddr *)&peer, peerLength);
  }
}
