// Test harness modules for SystemC module tests: a scripted AT initiator and a fixed-latency AT
// memory target, both speaking the base protocol through locsim's port helpers.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <deque>
#include <functional>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/functional_memory.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/sim_context.h"

namespace locsim::test {

// Sends queued payloads one after the other (back-pressured by END_REQ) and records responses.
struct TestInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<TestInitiator> socket;
  InitiatorPort port;
  std::deque<Payload*> queue;
  std::vector<Payload*> responses;
  std::vector<sc_core::sc_time> response_times;
  bool release_on_response = false;
  bool hold_responses = false;  // refuse responses (back-pressure) until release_held()
  std::vector<Payload*> held;   // responses refused, in arrival order
  sc_core::sc_event kick;

  explicit TestInitiator(sc_core::sc_module_name n) : sc_module(n), socket("socket"), port("p") {
    socket.register_nb_transport_bw(this, &TestInitiator::nb_bw);
    port.bind([this](Payload& gp, tlm::tlm_phase& ph,
                     sc_core::sc_time& d) { return socket->nb_transport_fw(gp, ph, d); },
              [this](Payload& gp) {
                if (hold_responses) {
                  held.push_back(&gp);
                  return false;
                }
                responses.push_back(&gp);
                response_times.push_back(sc_core::sc_time_stamp());
                if (release_on_response) gp.release();
                return true;
              },
              [this]() { send(); });
    SC_HAS_PROCESS(TestInitiator);
    SC_METHOD(send);
    sensitive << kick;
    dont_initialize();
  }
  void send() {
    while (!port.busy() && !queue.empty()) {
      Payload* gp = queue.front();
      queue.pop_front();
      port.send(*gp);
    }
  }
  // Stops holding and takes the response the port holds (the target then sends the rest).
  void release_held() {
    hold_responses = false;
    if (Payload* gp = port.held_response()) {
      responses.push_back(gp);
      response_times.push_back(sc_core::sc_time_stamp());
      port.accept_response();
    }
  }
  void push(Payload* gp) {
    queue.push_back(gp);
    kick.notify(sc_core::SC_ZERO_TIME);
  }
  tlm::tlm_sync_enum nb_bw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return port.on_bw(gp, ph, d);
  }
  // The socket's bw helper only forwards to the port: a locsim target bound directly links.
  void end_of_elaboration() override {
    port.reachable_by(
        dynamic_cast<const tlm::tlm_bw_transport_if<>*>(socket.get_base_export().get_interface()));
  }
  void start_of_simulation() override { port.link(socket.operator->()); }
};

// Answers every request after `latency`, reads/writes a functional memory, counts requests.
struct TestMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<TestMemory> socket;
  TargetPort port;
  FunctionalMemory mem;
  sc_core::sc_time latency;
  std::deque<std::pair<sc_core::sc_time, Payload*>> pending;
  std::vector<sc_core::sc_time> request_times;
  std::vector<Addr> addresses;
  sc_core::sc_event ev;
  unsigned line_bytes = 128;

  TestMemory(sc_core::sc_module_name n, sc_core::sc_time lat)
      : sc_module(n), socket("socket"), port("p"), latency(lat) {
    socket.register_nb_transport_fw(this, &TestMemory::nb_fw);
    socket.register_transport_dbg(this, &TestMemory::dbg);
    port.bind([this](Payload& gp, tlm::tlm_phase& ph,
                     sc_core::sc_time& d) { return socket->nb_transport_bw(gp, ph, d); },
              [this](Payload& gp) {
                request_times.push_back(sc_core::sc_time_stamp());
                addresses.push_back(gp.get_address());
                pending.emplace_back(sc_core::sc_time_stamp() + latency, &gp);
                ev.notify(latency);
                return true;
              },
              [this]() { ev.notify(sc_core::SC_ZERO_TIME); });
    SC_HAS_PROCESS(TestMemory);
    SC_METHOD(respond);
    sensitive << ev;
    dont_initialize();
  }
  void respond() {
    while (!pending.empty() && pending.front().first <= sc_core::sc_time_stamp() &&
           !port.response_busy()) {
      Payload* gp = pending.front().second;
      pending.pop_front();
      if (gp->is_read())
        mem.read(gp->get_address(), gp->get_data_ptr(), gp->get_data_length());
      else
        mem.write_masked(gp->get_address(), gp->get_data_ptr(), gpu_ext(*gp).bytes, line_bytes);
      gp->set_response_status(tlm::TLM_OK_RESPONSE);
      port.respond(*gp);
    }
    // A busy response channel wakes us through the response-done callback; only a response
    // that is not due yet needs a timed wake-up (a zero-delay one here would spin in deltas).
    if (!pending.empty() && !port.response_busy() &&
        pending.front().first > sc_core::sc_time_stamp())
      ev.notify(pending.front().first - sc_core::sc_time_stamp());
  }
  tlm::tlm_sync_enum nb_fw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return port.on_fw(gp, ph, d);
  }
  unsigned dbg(Payload& gp) {
    if (gp.is_read()) mem.read(gp.get_address(), gp.get_data_ptr(), gp.get_data_length());
    return gp.get_data_length();
  }
};

// A pooled load request for one line.
inline Payload* make_load(SimContext& ctx, Addr line, std::uint32_t bytes = 128,
                          std::uint16_t sm = 0) {
  Payload* gp = ctx.pool.allocate();
  GpuExtension& e = gpu_ext(*gp);
  gp->set_command(tlm::TLM_READ_COMMAND);
  gp->set_address(line);
  gp->set_data_length(bytes);
  gp->set_streaming_width(bytes);
  e.kind = AccessKind::Load;
  e.sm = sm;
  e.requesters.push_back(sm);
  e.bytes.set_range(0, bytes);
  e.sector_mask = (1u << (bytes / 32)) - 1u;
  return gp;
}

// A pooled store of the 32-bit `value` at byte `offset` of the line `line`.
inline Payload* make_word_store(SimContext& ctx, Addr line, unsigned offset, std::uint32_t value) {
  Payload* gp = make_load(ctx, line);
  gp->set_command(tlm::TLM_WRITE_COMMAND);
  GpuExtension& e = gpu_ext(*gp);
  e.kind = AccessKind::Store;
  e.bytes = ByteMask();
  e.bytes.set_range(offset, 4);
  std::memcpy(gp->get_data_ptr() + offset, &value, 4);
  return gp;
}

}  // namespace locsim::test
