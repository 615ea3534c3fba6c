#include "rocesim/switch/credit_control.hpp"

namespace rocesim {

void CreditControl::finalize(const std::vector<LinkEnd>& links, const std::string&, const std::string&) {
  ports_.resize(links.size());
}

void CreditControl::count(uint16_t port, int prio, PortPrioCounters& c) const {
  const Port& p = ports_[port];
  c.rx_bytes += p.in[prio].count.rx_bytes;
  for (int i = 0; i < kAdmissionDrops; ++i) {
    c.drops[static_cast<size_t>(i)] += p.in[prio].count.drops[static_cast<size_t>(i)];
  }
  c.credit_wait += p.tx.waited_until(prio, sim_.now());
}

int64_t CreditControl::overflows() const {
  int64_t n = 0;
  for (const Port& p : ports_) {
    n += p.rx.overflows;
  }
  return n;
}

void CreditControl::set_credits(uint16_t port, const CreditConfig& rx, uint32_t peer_buffer_blocks) {
  ports_[port].rx.cfg = rx;
  ports_[port].tx.limit.fill(peer_buffer_blocks);
}

void CreditControl::set_peer_credits(uint16_t port, uint32_t peer_buffer_blocks) {
  ports_[port].tx.limit.fill(peer_buffer_blocks);
}

Packet* CreditControl::frame(uint16_t out, const LinkEnd&, uint8_t& owed, bool) {
  return credit_packet(pool_, ports_[out].rx, owed);
}

}  // namespace rocesim
