#include "tlm_components/cache_shell.h"

#include <algorithm>

namespace locsim {

CacheShell::CacheShell(sc_core::sc_module_name name, double clock_hz, const char* upper_name,
                       const char* lower_name, bool l2)
    : sc_module(name),
      upper(upper_name, upper_fw_),
      lower(lower_name, lower_bw_),
      clk_(ClockDomain::from_hz(clock_hz)),
      retry_ev_(l2 ? Activation::Stage::kL2Request : Activation::Stage::kL1Request),
      resp_ev_(l2 ? Activation::Stage::kL2Response : Activation::Stage::kL1Response),
      up_("up"),
      down_("down") {
  upper.register_nb_transport_fw(this, &CacheShell::nb_fw);
  upper.register_b_transport(this, &CacheShell::b_transport_cb);
  upper.register_transport_dbg(this, &CacheShell::transport_dbg_cb);
  lower.register_nb_transport_bw(this, &CacheShell::nb_bw);
  // Backward calls go to the upper block's socket directly, past simple_target_socket's bw
  // helper: that one looks each transaction up in a map of the blocking calls it converts to
  // non-blocking ones, and there are none here (b_transport is registered).
  up_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                  sc_core::sc_time& d) { return upper_bw()->nb_transport_bw(gp, ph, d); },
           [this](Payload& gp) { return on_request(gp); },
           [this]() {  // END_RESP
             // Straight to the first edge at which response_method can send (the END_RESP comes
             // at the upper block's time, mostly not on this clock's edge).
             if (!responses_.empty())
               ask_response(std::max(
                   {responses_.next_cycle(), clk_.next_edge_cycle(), after(last_response_)}));
           });
  down_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                    sc_core::sc_time& d) { return lower->nb_transport_fw(gp, ph, d); },
             [this](Payload& gp) { return on_response_from_below(gp); }, [this]() { send_down(); });
  retry_ev_.bind<&CacheShell::retry_method>(this, std::string(this->name()) + ".retry_method");
  resp_ev_.bind<&CacheShell::response_method>(this, std::string(this->name()) + ".response_method");
}

void CacheShell::end_of_elaboration() {
  // Every interface a bound socket can reach the ports by: the shell's own ends (direct
  // binding) and the simple sockets' helpers (binding by export), all forwarding unchanged.
  up_.reachable_by(&upper_fw_);
  up_.reachable_by(
      dynamic_cast<const tlm::tlm_fw_transport_if<>*>(upper.get_base_export().get_interface()));
  down_.reachable_by(&lower_bw_);
  down_.reachable_by(
      dynamic_cast<const tlm::tlm_bw_transport_if<>*>(lower.get_base_export().get_interface()));
}

void CacheShell::start_of_simulation() {
  up_.link(upper_bw());
  down_.link(lower.operator->());
}

bool CacheShell::on_request(Payload& gp) {
  const Cycle now = clk_.now();
  const bool edge = clk_.on_edge(now);
  if (now == last_accept_ || !edge) {
    // One request per cycle, at an edge: take this one at the next edge (next_edge_cycle(),
    // from now without a second division).
    ask_retry(now + (edge ? 0 : 1) + (now == last_accept_ ? 1 : 0));
    held_cause_ = 0;
    return false;
  }
  const int f = process_fn_(*this, gp, now);
  if (f == 0) {
    last_accept_ = now;
    if (call_accepted_) {
      call_accepted_ = false;
      accepted(gp);
    }
    drop_same_cycle_retry(now);
    return true;
  }
  held_cause_ = f;
  held_since_ = now;
  return false;
}

void CacheShell::retry_method() {
  Payload* gp = up_.held_request();
  if (!gp) return;
  const Cycle now = retry_cycle_;  // this run's cycle, at its edge (ask_retry())
  sc_assert(clk_.on_edge(now));
  if (now == last_accept_) {
    ask_retry(now + 1);
    return;
  }
  const int f = process_fn_(*this, *gp, now);
  note_attempt(held_cause_, held_since_, f, now);
  if (f == 0) {
    last_accept_ = now;
    if (call_accepted_) {
      call_accepted_ = false;
      accepted(*gp);
    }
    up_.accept_request();  // the upper block may offer its next request here (held)
    drop_same_cycle_retry(now);
  }
}

void CacheShell::move_same_cycle_retry(Cycle now) {
  if (up_.held_request()) {
    retry_cycle_ = now + 1;
    retry_ev_.postpone(edge_ps(now + 1));
  } else {
    retry_ev_.cancel();
  }
}

void CacheShell::response_method() {
  const Cycle now = resp_cycle_;  // this run's cycle, at its edge (ask_response())
  sc_assert(clk_.on_edge(now));
  if (now == last_response_) {
    ask_response(now + 1);
    return;
  }
  if (up_.response_busy()) return;  // END_RESP from above wakes us
  if (responses_.ready(now)) {
    last_response_ = now;
    up_.respond(*responses_.pop());
  }
  if (!responses_.empty()) ask_response(std::max(responses_.next_cycle(), now + 1));
}

}  // namespace locsim
