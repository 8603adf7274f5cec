// GpuDevice, locsim's GPU as a virtual-platform device: the register map, device memory through
// b_transport / transport_dbg / DMI, launches with the completion interrupt, and the errors a
// driver can provoke. A host SC_THREAD drives the socket like a driver; one elaboration per test.
#include <tlm_utils/simple_initiator_socket.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/functional_memory.h"
#include "platforms/gpu_device.h"

namespace locsim {
namespace {

namespace r = devreg;

struct TestHost : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<TestHost> bus{"bus"};
  sc_core::sc_in<bool> irq{"irq"};
  std::function<void(TestHost&)> body;
  bool finished = false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> invalidations;

  SC_HAS_PROCESS(TestHost);
  explicit TestHost(sc_core::sc_module_name n) : sc_module(n) {
    bus.register_invalidate_direct_mem_ptr(this, &TestHost::invalidate);
    SC_THREAD(run);
  }
  void run() {
    body(*this);
    finished = true;
    sc_core::sc_stop();
  }
  void invalidate(sc_dt::uint64 a, sc_dt::uint64 b) { invalidations.emplace_back(a, b); }

  tlm::tlm_response_status access(bool write, std::uint64_t a, void* data, unsigned n) {
    tlm::tlm_generic_payload gp;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(a);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(n);
    gp.set_streaming_width(n);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    bus->b_transport(gp, d);
    wait(d);
    return gp.get_response_status();
  }
  std::uint32_t rd(std::uint64_t a) {
    std::uint32_t v = 0;
    REQUIRE(access(false, a, &v, 4) == tlm::TLM_OK_RESPONSE);
    return v;
  }
  std::uint64_t rd64(std::uint64_t a) { return rd(a) | std::uint64_t{rd(a + 4)} << 32; }
  void wr(std::uint64_t a, std::uint32_t v) {
    REQUIRE(access(true, a, &v, 4) == tlm::TLM_OK_RESPONSE);
  }
  void command(const std::string& text) {
    char buf[256] = {};
    std::strncpy(buf, text.c_str(), sizeof(buf) - 1);
    REQUIRE(access(true, r::kCommand, buf, sizeof(buf)) == tlm::TLM_OK_RESPONSE);
  }
  std::string message() {
    char buf[256] = {};
    REQUIRE(access(false, r::kMessage, buf, sizeof(buf)) == tlm::TLM_OK_RESPONSE);
    return std::string(buf);
  }
  void wait_done() {
    while (!irq.read()) wait(irq.value_changed_event());
  }
  std::uint32_t dbg_word(std::uint64_t dev_addr) {
    std::uint32_t v = 0;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(r::kMemBase + dev_addr);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    REQUIRE(bus->transport_dbg(gp) == 4);
    return v;
  }
};

struct Vp {
  GpuDevice gpu;
  TestHost host{"host"};
  sc_core::sc_signal<bool> irq{"irq_line"};
  explicit Vp(const std::string& platform, const std::vector<std::string>& sets = {})
      : gpu("dev", gpu_config_for(platform, sets)) {
    host.bus.bind(gpu.host);
    gpu.irq(irq);
    host.irq(irq);
  }
  void run(std::function<void(TestHost&)> body) {
    host.body = std::move(body);
    sc_core::sc_start();
    CHECK(host.finished);
    CHECK(gpu.failures().empty());
  }
};

// The data structure `i` of the loaded workload: (base, bytes, name).
struct Ds {
  std::uint64_t base, bytes;
  std::string name;
};
Ds select(TestHost& h, std::uint32_t i) {
  h.wr(r::kDsIndex, i);
  h.wr(r::kCtrl, r::kCmdSelectDs);
  REQUIRE(h.rd(r::kError) == r::kErrNone);
  return {h.rd64(r::kDsBase), h.rd64(r::kDsBytes), h.message()};
}

}  // namespace

TEST_CASE("device: identification, load, launch, interrupt and per-launch statistics") {
  Vp vp("fermi");
  vp.run([](TestHost& h) {
    CHECK(h.rd(r::kId) == r::kIdValue);
    CHECK(h.rd(r::kVersion) == r::kVersionValue);
    CHECK(h.rd(r::kStatus) == 0);
    h.command("vecadd n=65536");
    h.wr(r::kCtrl, r::kCmdLoad);
    CHECK(h.rd(r::kStatus) == r::kStLoaded);
    CHECK(h.rd(r::kKernels) == 1);
    REQUIRE(h.rd(r::kDsCount) == 3);
    const Ds a = select(h, 0), b = select(h, 1), c = select(h, 2);
    CHECK(a.name == "A");
    CHECK(c.name == "C");
    CHECK(a.bytes == 65536 * 4);
    // Inputs from the host: the kernel's loads are checked against exactly these values.
    std::vector<std::uint32_t> in(65536);
    for (std::uint32_t i = 0; i < in.size(); ++i) in[i] = 3 * i + 1;
    REQUIRE(h.access(true, r::kMemBase + a.base, in.data(), 65536 * 4) == tlm::TLM_OK_RESPONSE);
    REQUIRE(h.access(true, r::kMemBase + b.base, in.data(), 65536 * 4) == tlm::TLM_OK_RESPONSE);
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    h.wr(r::kCtrl, r::kCmdLaunch);
    CHECK((h.rd(r::kStatus) & r::kStBusy) != 0);  // a few microseconds of GPU time
    h.wait_done();
    CHECK(sc_core::sc_time_stamp() > t0);
    CHECK(h.rd(r::kStatus) == (r::kStDone | r::kStLoaded));
    CHECK(h.rd(r::kLaunches) == 1);
    CHECK(h.rd(r::kCtas) == 256);
    CHECK(h.rd64(r::kCycles) > 2000);
    // vecadd: per warp two loads, one store and the index/add arithmetic.
    CHECK(h.rd64(r::kWarpInsts) >= 65536 / 32 * 4);
    h.command("sm.warp_insts");
    h.wr(r::kCtrl, r::kCmdQueryStat);
    CHECK(h.rd(r::kError) == r::kErrNone);
    CHECK(h.rd64(r::kStatValue) == h.rd64(r::kWarpInsts));
    h.command("l1d.misses");
    h.wr(r::kCtrl, r::kCmdQueryStat);
    CHECK(h.rd64(r::kStatValue) >= 65536 * 4 * 2 / 128);  // A and B lines at least once
    h.wr(r::kCtrl, r::kCmdAck);
    CHECK(h.rd(r::kStatus) == r::kStLoaded);
    CHECK_FALSE(h.irq.read());
    // Results: the host's inputs are intact and every C word holds the value a store of kernel
    // 0 writes (locsim kernels move data; they do not compute it).
    for (std::uint32_t i = 0; i < 65536; i += 997) {
      CHECK(h.dbg_word(a.base + 4 * i) == in[i]);
      CHECK(h.dbg_word(c.base + 4 * i) == store_word(c.base + 4 * i, 0));
    }
    // A second launch of the same workload is kernel 1.
    h.wr(r::kCtrl, r::kCmdLaunch);
    h.wait_done();
    CHECK(h.rd(r::kLaunches) == 2);
    CHECK(h.dbg_word(c.base) == store_word(c.base, 1));
  });
}

TEST_CASE("device: host writes stay coherent with lines the L2 holds") {
  // After kernel 0, A's lines sit in the L2 (read) and C's are dirty there (written). The host
  // overwrites both; kernel 1 must load the host's A (the integrity check compares every load
  // with it) and the host must read back its own C, not the L2's or DRAM's stale copies.
  Vp vp("fermi");
  vp.run([&vp](TestHost& h) {
    h.command("vecadd n=2048");
    h.wr(r::kCtrl, r::kCmdLoad | r::kCmdLaunch);
    h.wait_done();
    h.wr(r::kCtrl, r::kCmdAck);
    const Ds a = select(h, 0), c = select(h, 2);
    REQUIRE(vp.gpu.platform().l2_holds(a.base, a.bytes));
    REQUIRE(vp.gpu.platform().l2_holds(c.base, c.bytes));
    std::vector<std::uint32_t> v(2048, 0xabcdef01u);
    REQUIRE(h.access(true, r::kMemBase + a.base, v.data(), 2048 * 4) == tlm::TLM_OK_RESPONSE);
    REQUIRE(h.access(true, r::kMemBase + c.base, v.data(), 2048 * 4) == tlm::TLM_OK_RESPONSE);
    CHECK(h.dbg_word(c.base + 400) == 0xabcdef01u);
    h.wr(r::kCtrl, r::kCmdLaunch);
    h.wait_done();
    CHECK(h.dbg_word(a.base + 4 * 1000) == 0xabcdef01u);
    CHECK(h.dbg_word(c.base + 4 * 1000) == store_word(c.base + 4 * 1000, 1));
  });
  CHECK(vp.gpu.platform().context().golden.committed_word(0x10000000) == 0xabcdef01u);
}

TEST_CASE("device: DMI only where DRAM is the whole truth, revoked at the next launch") {
  Vp vp("fermi");
  vp.run([&vp](TestHost& h) {
    h.command("vecadd n=262144");  // long enough to probe it while it runs
    h.wr(r::kCtrl, r::kCmdLoad);
    const Ds a = select(h, 0);
    tlm::tlm_generic_payload gp;
    tlm::tlm_dmi dmi;
    gp.set_address(r::kMemBase + a.base);
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    // Idle, nothing cached: granted for A's first 4 KiB page; the host writes through it.
    REQUIRE(h.bus->get_direct_mem_ptr(gp, dmi));
    CHECK(dmi.get_start_address() == r::kMemBase + a.base);
    CHECK(dmi.get_end_address() == r::kMemBase + a.base + 4095);
    CHECK(dmi.is_write_allowed());
    std::vector<std::uint32_t> words(1024);
    for (std::uint32_t i = 0; i < 1024; ++i) words[i] = 0x5000 + i;
    std::memcpy(dmi.get_dmi_ptr(), words.data(), 4096);
    CHECK(h.dbg_word(a.base + 8) == 0x5002);
    h.wr(r::kCtrl, r::kCmdLaunch);
    // While the launch runs: no DMI, no memory writes, no load or launch.
    CHECK_FALSE(h.bus->get_direct_mem_ptr(gp, dmi));
    std::uint32_t x = 0;
    CHECK(h.access(true, r::kMemBase + a.base, &x, 4) == tlm::TLM_COMMAND_ERROR_RESPONSE);
    CHECK(h.access(false, r::kMemBase + a.base, &x, 4) == tlm::TLM_OK_RESPONSE);
    h.wr(r::kCtrl, r::kCmdLaunch);
    CHECK(h.rd(r::kError) == r::kErrBusy);
    CHECK((h.rd(r::kStatus) & r::kStError) != 0);
    h.wr(r::kCtrl, r::kCmdLoad);
    CHECK(h.rd(r::kError) == r::kErrBusy);
    h.wait_done();
    // The launch revoked the grant; kernel 0's loads saw the DMI-written words (the integrity
    // check compares each load with them).
    REQUIRE(h.invalidations.size() == 1);
    CHECK(h.invalidations[0].first == r::kMemBase);
    // C's last page, stored last, is (dirty) in the L2: DMI is refused for it, still granted for
    // an untouched page.
    const Ds c = select(h, 2);
    const std::uint64_t last = c.base + c.bytes - 4096;
    CHECK(vp.gpu.platform().l2_holds(last, 4096));
    gp.set_address(r::kMemBase + last);
    CHECK_FALSE(h.bus->get_direct_mem_ptr(gp, dmi));
    gp.set_address(r::kMemBase + 0x40000000);
    CHECK(h.bus->get_direct_mem_ptr(gp, dmi));
  });
  CHECK(vp.gpu.platform().context().stats.total("sm", "warp_insts") > 0);
}

TEST_CASE("device: driver mistakes give an error code and a message, never a crash") {
  Vp vp("fermi");
  vp.run([](TestHost& h) {
    h.wr(r::kCtrl, r::kCmdLaunch);
    CHECK(h.rd(r::kError) == r::kErrNotLoaded);
    h.command("no_such_kernel");
    h.wr(r::kCtrl, r::kCmdLoad);
    CHECK(h.rd(r::kError) == r::kErrBadWorkload);
    CHECK(h.message().find("unknown workload 'no_such_kernel'") != std::string::npos);
    CHECK((h.rd(r::kStatus) & r::kStLoaded) == 0);
    h.command("vecadd n=zero");
    h.wr(r::kCtrl, r::kCmdLoad);
    CHECK(h.rd(r::kError) == r::kErrBadWorkload);
    CHECK(h.message().find("n") != std::string::npos);
    h.command("vecadd n");
    h.wr(r::kCtrl, r::kCmdLoad);
    CHECK(h.message() == "workload parameter 'n': expected name=value");
    h.command("trace /nonexistent/kernelslist.g");
    h.wr(r::kCtrl, r::kCmdLoad);
    CHECK(h.rd(r::kError) == r::kErrBadWorkload);
    CHECK(h.message().find("/nonexistent/kernelslist.g") != std::string::npos);
    h.command("vecadd n=1024");
    h.wr(r::kCtrl, r::kCmdLoad);
    CHECK(h.rd(r::kError) == r::kErrNone);
    CHECK(h.rd(r::kStatus) == r::kStLoaded);
    h.wr(r::kDsIndex, 3);
    h.wr(r::kCtrl, r::kCmdSelectDs);
    CHECK(h.rd(r::kError) == r::kErrBadIndex);
    h.command("l2.no_such_stat");
    h.wr(r::kCtrl, r::kCmdQueryStat);
    CHECK(h.rd(r::kError) == r::kErrUnknownStat);
    h.command("nodot");
    h.wr(r::kCtrl, r::kCmdQueryStat);
    CHECK(h.message() == "statistic 'nodot': expected kind.name");
    // Bus errors: unmapped, misaligned, wrong size, read-only.
    std::uint32_t v = 1;
    CHECK(h.access(false, 0x0f0, &v, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(h.access(false, 0x002, &v, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(h.access(false, r::kStatus, &v, 2) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(h.access(true, r::kStatus, &v, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(h.access(true, r::kMessage, &v, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // A debugger may read registers but not fire commands.
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(r::kCtrl);
    std::uint32_t launch = r::kCmdLaunch;
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&launch));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    CHECK(h.bus->transport_dbg(gp) == 0);
    CHECK((h.rd(r::kStatus) & r::kStBusy) == 0);
    // With the interrupt disabled completion shows only in STATUS.
    h.wr(r::kIrqEnable, 0);
    h.wr(r::kCtrl, r::kCmdLaunch);
    while (!(h.rd(r::kStatus) & r::kStDone)) wait(sc_core::sc_time(1, sc_core::SC_US));
    CHECK_FALSE(h.irq.read());
    CHECK(h.rd(r::kLaunches) == 1);
  });
}

TEST_CASE("device: an Accel-Sim trace loaded and launched through the registers") {
  Vp vp("fermi");
  vp.run([](TestHost& h) {
    h.command(std::string("trace ") + LOCSIM_SOURCE_DIR +
              "/tests/data/traces/store_atomic/kernelslist.g");
    h.wr(r::kCtrl, r::kCmdLoad);
    REQUIRE(h.rd(r::kError) == r::kErrNone);
    CHECK(h.rd(r::kKernels) == 2);
    h.wr(r::kCtrl, r::kCmdLaunch);
    h.wait_done();
    CHECK(h.rd(r::kLaunches) == 1);
    CHECK(h.rd(r::kCtas) == 2);
    // Each kernel's warp stores the words, then adds 1 to each: kernel 1's store, plus one.
    CHECK(h.dbg_word(0x10000000) == store_word(0x10000000, 1) + 1);
    CHECK(h.dbg_word(0x1000007c) == store_word(0x1000007c, 1) + 1);
  });
}

}  // namespace locsim
