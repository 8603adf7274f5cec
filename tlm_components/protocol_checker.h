// A pass-through hop that checks the TLM-2.0 base protocol on one link (our own checker: Debian's
// SystemC does not package the Doulos one). It enforces the rules the models rely on: at most one
// request and one response in flight per link, phase order per transaction, exactly one response
// per request, memory-managed payloads with a live reference count, response status set, address
// and command unchanged, and no open transaction left at the end of simulation. Violations are
// SC_REPORT_ERRORs naming the link.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>

namespace locsim {

class ProtocolChecker : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ProtocolChecker> target;
  tlm_utils::simple_initiator_socket<ProtocolChecker> initiator;

  explicit ProtocolChecker(sc_core::sc_module_name name);

  std::uint64_t transactions() const { return completed_; }
  std::uint64_t open_transactions() const { return txns_.size(); }
  // Called at end of simulation when the run finished normally.
  void check_quiescent() const;

 private:
  enum class State { RequestSent, RequestAccepted, ResponseSent };
  struct Txn {
    State state;
    std::uint64_t address;
    tlm::tlm_command command;
  };
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);

  void on_phase(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase, bool forward);
  void fail(const tlm::tlm_generic_payload& gp, const std::string& what) const;

  std::unordered_map<const tlm::tlm_generic_payload*, Txn> txns_;
  const tlm::tlm_generic_payload* req_in_flight_ = nullptr;
  const tlm::tlm_generic_payload* resp_in_flight_ = nullptr;
  std::uint64_t completed_ = 0;
};

}  // namespace locsim
