#include "tlm_components/at_ports.h"

#include "tlm_components/sim_time.h"

namespace locsim {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

InitiatorPort::InitiatorPort(const char* name)
    : peq_(sc_core::sc_gen_unique_name(name), this, &InitiatorPort::peq_cb) {}

void InitiatorPort::bind(FwFn fw, ResponseFn on_response, ReadyFn on_ready) {
  fw_ = std::move(fw);
  on_response_ = std::move(on_response);
  on_ready_ = std::move(on_ready);
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
