// A small virtual platform: a host CPU model (an SC_THREAD standing in for a driver) and locsim's
// GPU as a device behind a TLM-2.0 socket. The driver copies input data into device memory,
// launches two kernels through the registers, waits for the completion interrupt and checks the
// results with debug reads. Exit code 0 when every check holds.
//
// What "results" means here: locsim models how data moves, not what kernels compute. A load
// returns what memory holds (the device checks every loaded value against what the host and the
// kernels stored); a store writes locsim::store_word(address, kernel sequence number); an atomic
// adds 1. docs/virtual_platform.md explains the register map.
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/functional_memory.h"
#include "platforms/gpu_device.h"

namespace reg = locsim::devreg;

struct Driver : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Driver> bus{"bus"};
  sc_core::sc_in<bool> irq{"irq"};
  int errors = 0;
  bool completed = false;

  SC_HAS_PROCESS(Driver);
  explicit Driver(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(main); }

  // One loosely-timed access; the thread waits for the annotated time (no quantum keeper: the
  // device is the only target).
  bool access(tlm::tlm_command cmd, std::uint64_t addr, void* data, unsigned len) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    bus->b_transport(gp, delay);
    wait(delay);
    return gp.is_response_ok();
  }
  std::uint32_t read32(std::uint64_t a) {
    std::uint32_t v = 0;
    expect(access(tlm::TLM_READ_COMMAND, a, &v, 4), "register read");
    return v;
  }
  std::uint64_t read64(std::uint64_t a) { return read32(a) | std::uint64_t{read32(a + 4)} << 32; }
  void write32(std::uint64_t a, std::uint32_t v) {
    expect(access(tlm::TLM_WRITE_COMMAND, a, &v, 4), "register write");
  }
  void set_command(const std::string& text) {
    char buf[256] = {};
    std::strncpy(buf, text.c_str(), sizeof(buf) - 1);
    expect(access(tlm::TLM_WRITE_COMMAND, reg::kCommand, buf, sizeof(buf)), "command write");
  }
  std::string message() {
    char buf[256] = {};
    access(tlm::TLM_READ_COMMAND, reg::kMessage, buf, sizeof(buf));
    return buf;
  }
  // cudaMemcpy host -> device.
  void copy_to_device(std::uint64_t dev_addr, const std::vector<std::uint32_t>& words) {
    expect(
        access(tlm::TLM_WRITE_COMMAND, reg::kMemBase + dev_addr,
               const_cast<std::uint32_t*>(words.data()), static_cast<unsigned>(words.size() * 4)),
        "copy to device");
  }
  // Reads device memory without simulated time (a debugger's view).
  std::vector<std::uint32_t> peek(std::uint64_t dev_addr, std::size_t words) {
    std::vector<std::uint32_t> v(words);
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(reg::kMemBase + dev_addr);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(v.data()));
    gp.set_data_length(static_cast<unsigned>(words * 4));
    gp.set_streaming_width(static_cast<unsigned>(words * 4));
    expect(bus->transport_dbg(gp) == words * 4, "debug read");
    return v;
  }
  void expect(bool ok, const std::string& what) {
    if (ok) return;
    ++errors;
    std::printf("FAILED: %s\n", what.c_str());
  }
  // Loads a workload ("NAME param=value ..."); returns the device address of data structure i.
  void load(const std::string& workload) {
    set_command(workload);
    write32(reg::kCtrl, reg::kCmdLoad);
    expect(read32(reg::kError) == reg::kErrNone, "load '" + workload + "': " + message());
  }
  std::uint64_t data_structure(std::uint32_t i, std::uint64_t* bytes = nullptr) {
    write32(reg::kDsIndex, i);
    write32(reg::kCtrl, reg::kCmdSelectDs);
    if (bytes) *bytes = read64(reg::kDsBytes);
    return read64(reg::kDsBase);
  }
  void launch_and_wait(const char* what) {
    write32(reg::kCtrl, reg::kCmdLaunch);
    while (!irq.read()) wait(irq.posedge_event());
    std::printf("%-10s done at %s: %llu core cycles, %llu warp instructions, %u CTAs\n", what,
                sc_core::sc_time_stamp().to_string().c_str(),
                static_cast<unsigned long long>(read64(reg::kCycles)),
                static_cast<unsigned long long>(read64(reg::kWarpInsts)), read32(reg::kCtas));
    write32(reg::kCtrl, reg::kCmdAck);
  }
  std::uint64_t stat(const std::string& name) {
    set_command(name);
    write32(reg::kCtrl, reg::kCmdQueryStat);
    expect(read32(reg::kError) == reg::kErrNone, "statistic " + name);
    return read64(reg::kStatValue);
  }

  void main() {
    expect(read32(reg::kId) == reg::kIdValue, "device ID");

    // Kernel 0: vecadd C = A + B over n words. The host provides A and B.
    const std::uint32_t n = 32768;
    load("vecadd n=" + std::to_string(n));
    const std::uint64_t a = data_structure(0), b = data_structure(1), c = data_structure(2);
    std::vector<std::uint32_t> va(n), vb(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      va[i] = i;
      vb[i] = 0x40000000u + 7 * i;
    }
    copy_to_device(a, va);
    copy_to_device(b, vb);
    launch_and_wait("vecadd");
    std::printf("           l1d.misses %llu, l2.hits %llu, dram.read_bytes %llu\n",
                static_cast<unsigned long long>(stat("l1d.misses")),
                static_cast<unsigned long long>(stat("l2.hits")),
                static_cast<unsigned long long>(stat("dram.read_bytes")));
    const auto got_a = peek(a, n), got_c = peek(c, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (got_a[i] != va[i]) expect(false, "input A[" + std::to_string(i) + "] intact");
      if (got_c[i] != locsim::store_word(c + 4 * i, 0))
        expect(false, "C[" + std::to_string(i) + "] stored by kernel 0");
      if (errors > 5) break;
    }

    // Kernel 1: a 256-bin histogram with global atomics over m input words. The host clears
    // the bins; each input word adds 1 to the bin its lane picks, so the bins sum to m.
    const std::uint32_t m = 65536;
    load("histogram n=" + std::to_string(m) + " ctas=60");
    const std::uint64_t in = data_structure(0), bins = data_structure(1);
    std::vector<std::uint32_t> input(m);
    for (std::uint32_t i = 0; i < m; ++i) input[i] = i * 2654435761u;
    copy_to_device(in, input);
    copy_to_device(bins, std::vector<std::uint32_t>(256, 0));
    launch_and_wait("histogram");
    std::uint64_t sum = 0;
    for (std::uint32_t v : peek(bins, 256)) sum += v;
    expect(sum == m,
           "histogram bins sum to " + std::to_string(m) + " (got " + std::to_string(sum) + ")");
    expect(read32(reg::kLaunches) == 2, "two launches completed");
    completed = true;
    sc_core::sc_stop();
  }
};

int sc_main(int, char*[]) {
  // The host stops the simulation when it is done; SystemC's note about it is noise here.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  locsim::GpuDevice gpu("gpu", locsim::gpu_config_for("fermi"));
  Driver host("host");
  sc_core::sc_signal<bool> irq("irq");
  host.bus.bind(gpu.host);
  gpu.irq(irq);
  host.irq(irq);
  sc_core::sc_start();
  for (const std::string& f : gpu.failures()) std::printf("device failure: %s\n", f.c_str());
  const bool ok = host.completed && host.errors == 0 && gpu.failures().empty();
  std::printf("%s\n", ok ? "virtual platform: all checks passed" : "virtual platform: FAILED");
  return ok ? 0 : 1;
}
