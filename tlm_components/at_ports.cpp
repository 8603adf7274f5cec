#include "tlm_components/at_ports.h"

#include <unordered_map>

#include "tlm_components/sim_time.h"

namespace locsim {

namespace {
// Interface -> the port it forwards to, for the objects alive now (a port removes its entries
// when destroyed, so a later object at the same address is not taken for it).
template <class Port>
std::unordered_map<const void*, Port*>& registry() {
  static std::unordered_map<const void*, Port*> map;
  return map;
}
template <class Port>
void unregister(Port* p) {
  auto& m = registry<Port>();
  for (auto it = m.begin(); it != m.end();) it = it->second == p ? m.erase(it) : std::next(it);
}
template <class Port>
Port* lookup(const void* iface) {
  const auto& m = registry<Port>();
  const auto it = m.find(iface);
  return it == m.end() ? nullptr : it->second;
}
}  // namespace

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

InitiatorPort::InitiatorPort(const char* name)
    : peq_(sc_core::sc_gen_unique_name(name), this, &InitiatorPort::peq_cb) {}

void InitiatorPort::bind(FwFn fw, ResponseFn on_response, ReadyFn on_ready) {
  fw_ = std::move(fw);
  on_response_ = std::move(on_response);
  on_ready_ = std::move(on_ready);
}

InitiatorPort::~InitiatorPort() {
  unregister(this);
}

void InitiatorPort::reachable_by(const tlm::tlm_bw_transport_if<>* bw) {
  if (bw) registry<InitiatorPort>()[bw] = this;
}

void InitiatorPort::link(const tlm::tlm_fw_transport_if<>* fw) {
  peer_ = fw ? lookup<TargetPort>(fw) : nullptr;
}

bool InitiatorPort::sent(Payload& gp, tlm::tlm_sync_enum s, tlm::tlm_phase& phase, sc_time& delay) {
  if (s == tlm::TLM_UPDATED) {
    if (delay != SC_ZERO_TIME) {
      peq_.notify(gp, phase, delay + sim_time_ahead_by());
      return false;
    }
    // END_REQ (or BEGIN_RESP, which implies END_REQ).
    if (phase == tlm::END_REQ) {
      pending_req_ = nullptr;
      return true;
    }
    handle(gp, phase);
    return !busy();
  }
  // TLM_COMPLETED: the target finished the transaction in the call (response implied).
  pending_req_ = nullptr;
  on_response_(gp);
  return true;
}

tlm::tlm_sync_enum InitiatorPort::on_bw_other(Payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
  if (delay != SC_ZERO_TIME) {
    peq_.notify(gp, phase, delay + sim_time_ahead_by());
    return tlm::TLM_ACCEPTED;
  }
  handle(gp, phase);
  return tlm::TLM_ACCEPTED;
}

void InitiatorPort::handle(Payload& gp, const tlm::tlm_phase& phase) {
  if (phase == tlm::END_REQ) {
    end_req(gp);
  } else if (phase == tlm::BEGIN_RESP) {
    if (begin_resp(gp) == tlm::TLM_COMPLETED) {
      // Response taken via the peq path: tell the target with END_RESP.
      tlm::tlm_phase e = tlm::END_RESP;
      sc_time z = SC_ZERO_TIME;
      fw_(gp, e, z);
    }
  } else {
    SC_REPORT_ERROR("locsim/at_ports", "initiator port received an illegal phase");
  }
}

void InitiatorPort::peq_cb(Payload& gp, const tlm::tlm_phase& phase) {
  handle(gp, phase);
}

TargetPort::TargetPort(const char* name)
    : peq_(sc_core::sc_gen_unique_name(name), this, &TargetPort::peq_cb) {}

void TargetPort::bind(BwFn bw, RequestFn on_request, ResponseDoneFn on_response_done) {
  bw_ = std::move(bw);
  on_request_ = std::move(on_request);
  on_response_done_ = std::move(on_response_done);
}

TargetPort::~TargetPort() {
  unregister(this);
}

void TargetPort::reachable_by(const tlm::tlm_fw_transport_if<>* fw) {
  if (fw) registry<TargetPort>()[fw] = this;
}

void TargetPort::link(const tlm::tlm_bw_transport_if<>* bw) {
  peer_ = bw ? lookup<InitiatorPort>(bw) : nullptr;
}

tlm::tlm_sync_enum TargetPort::on_fw_other(Payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
  if (delay != SC_ZERO_TIME) {
    peq_.notify(gp, phase, delay + sim_time_ahead_by());
    return tlm::TLM_ACCEPTED;
  }
  handle(gp, phase);
  return tlm::TLM_COMPLETED;
}

void TargetPort::handle(Payload& gp, const tlm::tlm_phase& phase) {
  if (phase == tlm::BEGIN_REQ) {
    sc_assert(held_req_ == nullptr);
    if (on_request_(gp)) {
      tlm::tlm_phase e = tlm::END_REQ;
      sc_time z = SC_ZERO_TIME;
      bw_(gp, e, z);
    } else {
      held_req_ = &gp;
    }
  } else if (phase == tlm::END_RESP) {
    end_resp(gp);
  } else {
    SC_REPORT_ERROR("locsim/at_ports", "target port received an illegal phase");
  }
}

void TargetPort::peq_cb(Payload& gp, const tlm::tlm_phase& phase) {
  handle(gp, phase);
}

}  // namespace locsim
