#include "tlm_components/cache_shell.h"

#include <algorithm>

namespace locsim {

CacheShell::CacheShell(sc_core::sc_module_name name, double clock_hz, const char* upper_name,
                       const char* lower_name, bool l2)
    : sc_module(name),
      upper(upper_name),
      lower(lower_name),
      clk_(ClockDomain::from_hz(clock_hz)),
      up_("up"),
      down_("down"),
      retry_ev_(l2 ? Activation::Stage::kL2Request : Activation::Stage::kL1Request),
      resp_ev_(l2 ? Activation::Stage::kL2Response : Activation::Stage::kL1Response) {
  upper.register_nb_transport_fw(this, &CacheShell::nb_fw);
  upper.register_b_transport(this, &CacheShell::b_transport_cb);
  upper.register_transport_dbg(this, &CacheShell::transport_dbg_cb);
  lower.register_nb_transport_bw(this, &CacheShell::nb_bw);
  up_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                  sc_core::sc_time& d) { return upper->nb_transport_bw(gp, ph, d); },
           [this](Payload& gp) { return on_request(gp); },
           [this]() {
             if (!responses_.empty()) resp_ev_.notify(sc_core::SC_ZERO_TIME);  // END_RESP
           });
  down_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                    sc_core::sc_time& d) { return lower->nb_transport_fw(gp, ph, d); },
             [this](Payload& gp) { return on_response_from_below(gp); }, [this]() { send_down(); });
  retry_ev_.bind<&CacheShell::retry_method>(this, std::string(this->name()) + ".retry_method");
  resp_ev_.bind<&CacheShell::response_method>(this, std::string(this->name()) + ".response_method");
}

bool CacheShell::on_request(Payload& gp) {
  const Cycle now = clk_.now();
  if (now == last_accept_ || !clk_.on_edge(now)) {
    // One request per cycle, at an edge: take this one at the next edge.
    retry_ev_.notify_at(clk_.ps_at(clk_.next_edge_cycle() + (now == last_accept_ ? 1 : 0)));
    held_cause_ = 0;
    return false;
  }
  const int f = process(gp, now);
  if (f == 0) {
    last_accept_ = now;
    accepted(gp);
    return true;
  }
  held_cause_ = f;
  held_since_ = now;
  return false;
}

void CacheShell::retry_method() {
  Payload* gp = up_.held_request();
  if (!gp) return;
  const Cycle now = clk_.now();
  if (!clk_.on_edge(now) || now == last_accept_) {
    retry_ev_.notify_at(clk_.ps_at(now + 1));
    return;
  }
  const int f = process(*gp, now);
  note_attempt(held_cause_, held_since_, f, now);
  if (f == 0) {
    last_accept_ = now;
    accepted(*gp);
    up_.accept_request();
  }
}

void CacheShell::wake_responses() {
  // At the first response's cycle, and not before the next cycle. (Waking at the next cycle
  // to sleep on to that one changed nothing but the event order: c76c871 made it canonical.)
  resp_ev_.notify_at(clk_.ps_at(std::max(responses_.next_cycle(), clk_.next_edge_cycle() + 1)));
}

void CacheShell::retry_at(Cycle when) {
  if (up_.held_request()) retry_ev_.notify_at(clk_.ps_at(when));
}

void CacheShell::response_method() {
  const Cycle now = clk_.now();
  if (!clk_.on_edge(now) || now == last_response_) {
    resp_ev_.notify_at(clk_.ps_at(now + 1));
    return;
  }
  if (up_.response_busy()) return;  // END_RESP from above wakes us
  if (responses_.ready(now)) {
    last_response_ = now;
    up_.respond(*responses_.pop());
  }
  if (!responses_.empty())
    resp_ev_.notify_at(clk_.ps_at(std::max(responses_.next_cycle(), now + 1)));
}

}  // namespace locsim
