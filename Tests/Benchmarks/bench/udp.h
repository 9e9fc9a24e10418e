/*
 * Shared by the loopback test servers here (echo.c, slow-upstream.c): the
 * UDP socket they answer on, included from beside them (`gcc FILE.c` finds
 * it without -I).
 */
#ifndef BENCH_UDP_H
#define BENCH_UDP_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* A UDP socket bound to 127.0.0.1:PORT (a decimal string); -1, with the
 * reason on stderr, if it cannot be had. */
static int bind_loopback_udp(const char *port) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    perror("socket");
    return -1;
  }
  struct sockaddr_in local;
  memset(&local, 0, sizeof local);
  local.sin_family = AF_INET;
  local.sin_port = htons((unsigned short)atoi(port));
  local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
    perror("bind");
    return -1;
  }
  return fd;
}

#endif
