// A connection between two GPU modules of a multi-chip-module GPU (seed 000 §5, Table 1:
// MCM-GPU with 192 GB/s between modules; spec I-14). Requests enter `in` from the near module's
// network and leave `out` into the far module's; their replies travel back. Each direction is a
// path of physical wires (SerialChannels: bandwidth), each hop adding a fixed latency, store and
// forward. Wires are shared by every connection routed over them (on a ring, the connections
// to the next and to the next-but-one module share the first wire), so they contend. A
// connection never passes through an intermediate module's network, which keeps the request
// and reply dependencies acyclic (no ring deadlock). Each direction holds at most `buffer`
// bytes of packets on its wires or waiting at the far end (credit-based flow control counts
// buffer space in bytes); a full direction withholds END_REQ (requests) or END_RESP (replies),
// so nothing is dropped and back-pressure reaches both networks.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "model/serial_channel.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/sim_context.h"
#include "tlm_components/timed_queue.h"

namespace locsim {

struct InterModuleLinkConfig {
  std::uint32_t latency = 32;  // cycles from a packet's last byte leaving to its arrival
  // Bytes held per direction; 0: the bandwidth-delay product of the longer path, so that
  // credits never hold the wires below their bandwidth (auto_buffer_bytes).
  std::uint32_t buffer = 0;
  std::uint32_t header_bytes = 8;
  double clock_hz = 1.4e9;  // the link's cycle (the core clock in locsim's mcm platform)
};

class InterModuleLink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<InterModuleLink> in;      // from the near module
  tlm_utils::simple_initiator_socket<InterModuleLink> out;  // to the far module

  // `forward` are the wires this link's requests cross in order, `backward` its replies'; the
  // wires must outlive the link.
  InterModuleLink(sc_core::sc_module_name name, const InterModuleLinkConfig& cfg,
                  std::vector<SerialChannel*> forward, std::vector<SerialChannel*> backward,
                  SimContext& ctx);

  // Header plus the data a request / reply carries (the crossbar's packet sizes).
  std::uint32_t request_bytes(const Payload& gp) const;
  std::uint32_t reply_bytes(const Payload& gp) const;
  // Bytes each direction holds (the configured buffer, or its automatic size).
  std::uint32_t buffer_bytes() const { return buffer_; }
  // Enough bytes in flight to keep every wire of `path` busy: per hop, latency x bandwidth plus
  // one largest packet (header + a 128-byte line) being serialised.
  static std::uint32_t auto_buffer_bytes(const std::vector<SerialChannel*>& path,
                                         std::uint32_t latency, std::uint32_t header_bytes);

 private:
  bool on_request(Payload& gp);
  bool on_reply(Payload& gp);
  void step_method();
  void kick(Cycle c) { step_ev_.notify_at(clk_.ps_at(c)); }

  tlm::tlm_sync_enum nb_fw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return up_.on_fw(gp, ph, d);
  }
  tlm::tlm_sync_enum nb_bw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return down_.on_bw(gp, ph, d);
  }
  void b_transport(Payload& gp, sc_core::sc_time& d) { out->b_transport(gp, d); }
  unsigned int transport_dbg(Payload& gp) { return out->transport_dbg(gp); }

  InterModuleLinkConfig cfg_;
  ClockDomain clk_;
  // The cycle a packet of `bytes` offered at `now` arrives at the end of `path`.
  Cycle traverse(const std::vector<SerialChannel*>& path, Cycle now, std::uint32_t bytes) const;
  std::vector<SerialChannel*> fwd_, bwd_;
  TargetPort up_;
  InitiatorPort down_;
  // Packets on the wires or arrived and waiting for the next hop, by arrival cycle; their bytes
  // are the direction's buffer occupancy.
  TimedQueue<Payload*> requests_, replies_;
  std::uint32_t buffer_ = 0;
  std::uint64_t request_held_ = 0, reply_held_ = 0;  // bytes in requests_ / replies_
  // Room for `bytes` more in a direction holding `held` (an empty direction takes any packet).
  bool room(std::uint64_t held, std::uint32_t bytes) const {
    return held == 0 || held + bytes <= buffer_;
  }
  std::unordered_map<const Payload*, Cycle> accepted_;  // request -> cycle it was accepted
  Activation step_ev_{Activation::Stage::kNetwork};
  Counter &req_count_, &rep_count_, &req_bytes_, &rep_bytes_;
  Distribution& req_latency_;
};

}  // namespace locsim
