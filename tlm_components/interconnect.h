// The contract of every on-chip interconnect between memory-side initiators (L1 slices, ICC units,
// SMs, module links) and targets (L2 sub-partitions, module links).
//
//  * `in` takes N initiator-side bindings, `out` M target-side bindings; both speak the
//    approximately-timed base protocol with back-pressure: a request is accepted (END_REQ) only
//    when its injection port has buffer space, a reply only when the reply network has; a link
//    carries at most one request and one response per cycle.
//  * Requests go to the `out` binding the platform's AddressMap names for their address (the L2
//    sub-partition index); b_transport and transport_dbg are forwarded the same way.
//  * Replies go back to the `in` binding the request entered by, recorded in the payload's
//    RouteExtension when the request was accepted (pushed on accept, popped when the reply
//    leaves). Nothing is routed by SM or cluster id.
//  * Statistics: per injection port (a port may group several `in` bindings) the request flits
//    injected and the reply flits delivered, and the interconnect's cycles elapsed.
#pragma once
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/types.h"
#include "tlm_components/at_ports.h"

namespace locsim {

class Interconnect : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Interconnect> in;      // initiator side, N bindings
  tlm_utils::multi_passthrough_initiator_socket<Interconnect> out;  // target side, M bindings

  // Injection ports (groups of `in` bindings sharing one injection port and reply FIFO).
  virtual std::uint32_t ports() const = 0;
  // Target-side bindings `out` expects.
  virtual std::uint32_t targets() const = 0;
  // Flits injected by / delivered to port p so far.
  virtual std::uint64_t port_request_flits(std::uint32_t p) const = 0;
  virtual std::uint64_t port_reply_flits(std::uint32_t p) const = 0;
  // Flits port p moves per cycle (its link width).
  virtual std::uint32_t port_width(std::uint32_t) const { return 1; }
  // Interconnect clock cycles elapsed.
  virtual Cycle noc_cycles() const = 0;

 protected:
  explicit Interconnect(sc_core::sc_module_name name) : sc_module(name), in("in"), out("out") {
    in.register_nb_transport_fw(this, &Interconnect::in_nb_transport_fw);
    in.register_b_transport(this, &Interconnect::in_b_transport);
    in.register_transport_dbg(this, &Interconnect::in_transport_dbg);
    out.register_nb_transport_bw(this, &Interconnect::out_nb_transport_bw);
  }
  // The AT endpoint of the next `in` binding: `on_request(gp)` says whether the network takes
  // a request now (else it is held until in_ports_[i]->accept_request()), `on_response_done`
  // runs when the binding's response channel is free again.
  void add_in_port(TargetPort::RequestFn on_request, TargetPort::ResponseDoneFn on_response_done) {
    const std::size_t i = in_ports_.size();
    in_ports_.push_back(std::make_unique<TargetPort>("in_port"));
    in_ports_.back()->bind(
        [this, i](Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
          return in[i]->nb_transport_bw(gp, ph, d);
        },
        std::move(on_request), std::move(on_response_done));
  }
  // The AT endpoint of the next `out` binding: `on_reply(gp)` says whether the network takes a
  // reply now, `on_ready` runs when the binding's request channel is free again.
  void add_out_port(InitiatorPort::ResponseFn on_reply, InitiatorPort::ReadyFn on_ready) {
    const std::size_t t = out_ports_.size();
    out_ports_.push_back(std::make_unique<InitiatorPort>("out_port"));
    out_ports_.back()->bind(
        [this, t](Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
          return out[t]->nb_transport_fw(gp, ph, d);
        },
        std::move(on_reply), std::move(on_ready));
  }
  // The binders of `in` / `out` call in_nb_transport_fw / out_nb_transport_bw with the binding
  // index, which only forward to in_ports_ / out_ports_. A subclass overriding
  // end_of_elaboration() calls this one.
  void end_of_elaboration() override {
    auto& fw = static_cast<tlm_utils::multi_target_base_if<>&>(in).get_binders();
    for (std::size_t i = 0; i < fw.size() && i < in_ports_.size(); ++i)
      in_ports_[i]->reachable_by(fw[i]);
    auto& bw = static_cast<tlm_utils::multi_init_base_if<>&>(out).get_binders();
    for (std::size_t t = 0; t < bw.size() && t < out_ports_.size(); ++t)
      out_ports_[t]->reachable_by(bw[t]);
  }
  void start_of_simulation() override {
    for (std::size_t i = 0; i < in.size() && i < in_ports_.size(); ++i)
      in_ports_[i]->link(in[static_cast<int>(i)]);
    for (std::size_t t = 0; t < out.size() && t < out_ports_.size(); ++t)
      out_ports_[t]->link(out[static_cast<int>(t)]);
  }
  std::vector<std::unique_ptr<TargetPort>> in_ports_;      // one per `in` binding
  std::vector<std::unique_ptr<InitiatorPort>> out_ports_;  // one per `out` binding

  // Socket callbacks; `id` is the binding index of `in` or `out`. The phases go to the ports.
  // Final: the direct links rely on them only forwarding.
  virtual tlm::tlm_sync_enum in_nb_transport_fw(int id, Payload& gp, tlm::tlm_phase& ph,
                                                sc_core::sc_time& d) final {
    return in_ports_[id]->on_fw(gp, ph, d);
  }
  virtual tlm::tlm_sync_enum out_nb_transport_bw(int id, Payload& gp, tlm::tlm_phase& ph,
                                                 sc_core::sc_time& d) final {
    return out_ports_[id]->on_bw(gp, ph, d);
  }
  virtual void in_b_transport(int id, Payload& gp, sc_core::sc_time& d) = 0;
  virtual unsigned int in_transport_dbg(int id, Payload& gp) = 0;
};

}  // namespace locsim
