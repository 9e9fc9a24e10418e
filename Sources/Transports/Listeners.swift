import CompiledConfig
import Platform

/// The client-facing sockets of one worker: a UDP and a TCP socket per
/// `listen` address, in config order (the index is `ClientRef.listener`).
///
/// With `workers N`, every worker has its own set, bound to the same
/// addresses with SO_REUSEPORT: the kernel then spreads clients over the
/// workers by address hash, and only sockets of this same user can join
/// the group (so another account cannot steal the port).
public struct Listeners {
  public internal(set) var udp: [FileDescriptor] = []
  public internal(set) var tcp: [FileDescriptor] = []
  /// Where each listener really is (port 0 in a config binds a free port).
  public internal(set) var addresses: [SocketAddress] = []
  /// The addresses no interface had when they were bound (IP_FREEBIND):
  /// served once the address is configured.
  public internal(set) var notYetConfigured: [SocketAddress] = []

  public enum OpenError: Error {
    case bind(SocketAddress, Errno)
  }

  /// Opens and binds one set. Closes what it opened when one address fails.
  public static func open(_ addresses: [SocketAddress], reusePort: Bool) throws(OpenError)
    -> Listeners
  {
    var listeners = Listeners()
    for address in addresses {
      do throws(Errno) {
        try listeners.add(address, reusePort: reusePort)
      } catch {
        listeners.close()
        throw .bind(address, error)
      }
    }
    return listeners
  }

  /// Opens the UDP and TCP socket of one address; on failure neither is
  /// left open. Port 0 asks the kernel for a free UDP port and TCP then
  /// listens on the same one, which may be taken for TCP (an outgoing
  /// connection's local port, even one in TIME-WAIT): then a few fresh
  /// ports are tried.
  private mutating func add(_ address: SocketAddress, reusePort: Bool) throws(Errno) {
    var attemptsLeft = address.port == 0 ? 8 : 1
    while true {
      attemptsLeft -= 1
      let udp = try Socket.udp(for: address)
      let bound: SocketAddress
      let boundFree: Bool
      do throws(Errno) {
        boundFree = try Socket.bindListener(udp, to: address, reusePort: reusePort)
        bound = Socket.localAddress(udp) ?? address
      } catch {
        udp.close()
        throw error
      }
      let tcp: FileDescriptor
      do throws(Errno) {
        tcp = try Socket.tcp(for: bound)
        do throws(Errno) {
          try Socket.bindListener(tcp, to: bound, reusePort: reusePort)
          try Socket.listen(tcp, backlog: 128)
        } catch {
          tcp.close()
          throw error
        }
      } catch {
        udp.close()
        if attemptsLeft > 0 { continue }
        throw error
      }
      self.udp.append(udp)
      self.tcp.append(tcp)
      addresses.append(bound)
      if boundFree { notYetConfigured.append(bound) }
      return
    }
  }

  /// `count` sets for `workers`: the first binds the `listen` endpoints
  /// (learning kernel-chosen ports), the others join it on the same ports.
  public static func open(_ endpoints: [Endpoint], workers count: Int) throws(OpenError)
    -> [Listeners]
  {
    let reusePort = count > 1
    var sets = [try open(endpoints.map { SocketAddress($0) }, reusePort: reusePort)]
    while sets.count < count {
      do {
        sets.append(try open(sets[0].addresses, reusePort: true))
      } catch {
        for set in sets { set.close() }
        throw error
      }
    }
    return sets
  }

  public func close() {
    for fd in udp { fd.close() }
    for fd in tcp { fd.close() }
  }
}
