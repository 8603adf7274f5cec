// locsim's GPU as a device of a virtual platform: the GpuPlatform of a configuration behind one
// TLM-2.0 target socket, through which a host (a driver model) reaches memory-mapped registers
// and device memory, and an interrupt line that rises when a launch has completed. Another
// SystemC program instantiates it like any other sc_module (docs/virtual_platform.md).
#pragma once
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/stats.h"
#include "model/workload/kernel.h"
#include "platforms/gpu_params.h"
#include "platforms/gpu_platform.h"

namespace locsim {

// The register map: 32-bit little-endian registers (64-bit values as LO/HI pairs) at byte
// offsets from the socket's address 0, two 256-byte text windows, and device memory above
// kMemBase (device address d is host address kMemBase + d).
namespace devreg {
constexpr std::uint64_t kId = 0x000;         // RO  0x4C53494D ("LSIM")
constexpr std::uint64_t kVersion = 0x004;    // RO  major << 16 | minor
constexpr std::uint64_t kCtrl = 0x008;       // WO  command bits below, done in bit order
constexpr std::uint64_t kStatus = 0x00C;     // RO  status bits below
constexpr std::uint64_t kError = 0x010;      // RO  error code of the last failed command
constexpr std::uint64_t kIrqEnable = 0x014;  // RW  bit 0: raise `irq` on completion (reset 1)
constexpr std::uint64_t kKernels = 0x018;    // RO  kernels of the loaded workload
constexpr std::uint64_t kLaunches = 0x01C;   // RO  launches completed
constexpr std::uint64_t kCycles = 0x020;     // RO  u64: core cycles of the last launch
constexpr std::uint64_t kWarpInsts = 0x028;  // RO  u64: warp instructions of the last launch
constexpr std::uint64_t kDsCount = 0x030;    // RO  data structures of the loaded workload
constexpr std::uint64_t kDsIndex = 0x034;    // RW  data structure SELECT_DS describes
constexpr std::uint64_t kDsBase = 0x038;     // RO  u64: its device address
constexpr std::uint64_t kDsBytes = 0x040;    // RO  u64: its size in bytes
constexpr std::uint64_t kStatValue = 0x048;  // RO  u64: QUERY_STAT's value
constexpr std::uint64_t kStatCount = 0x050;  // RO  u64: QUERY_STAT's sample count
constexpr std::uint64_t kNow = 0x058;        // RO  u64: current core cycle
constexpr std::uint64_t kCtas = 0x060;       // RO  CTAs of the last launch
constexpr std::uint64_t kCommand = 0x100;    // RW  256 B text: LOAD's workload, QUERY_STAT's name
constexpr std::uint64_t kMessage = 0x200;    // RO  256 B text: error message / data structure name
constexpr std::uint64_t kRegsEnd = 0x300;
constexpr std::uint64_t kMemBase = 0x1000000000000ull;  // 2^48

constexpr std::uint32_t kIdValue = 0x4C53494D;
constexpr std::uint32_t kVersionValue = 0x00010000;

// CTRL bits.
constexpr std::uint32_t kCmdLoad = 1u << 0;       // build the workload named in COMMAND
constexpr std::uint32_t kCmdLaunch = 1u << 1;     // run the loaded workload
constexpr std::uint32_t kCmdAck = 1u << 2;        // clear DONE and lower irq
constexpr std::uint32_t kCmdQueryStat = 1u << 3;  // STAT_* = statistic "kind.name" in COMMAND
constexpr std::uint32_t kCmdSelectDs = 1u << 4;   // DS_* and MESSAGE describe DS_INDEX

// STATUS bits.
constexpr std::uint32_t kStBusy = 1u << 0;    // a launch runs (or its memory traffic drains)
constexpr std::uint32_t kStDone = 1u << 1;    // a launch completed and was not acknowledged
constexpr std::uint32_t kStError = 1u << 2;   // the last command failed (ERROR, MESSAGE)
constexpr std::uint32_t kStLoaded = 1u << 3;  // a workload is loaded

// ERROR codes.
enum : std::uint32_t {
  kErrNone = 0,
  kErrBadWorkload = 1,  // LOAD: unknown workload, bad parameter, unreadable trace
  kErrBusy = 2,         // LOAD or LAUNCH while a launch runs
  kErrNotLoaded = 3,    // LAUNCH without a workload
  kErrUnknownStat = 4,  // QUERY_STAT: no such statistic
  kErrBadIndex = 5,     // SELECT_DS: DS_INDEX out of range
  kErrLaunch = 6,       // LAUNCH: the workload cannot run on this GPU (e.g. a CTA does not fit)
};
}  // namespace devreg

// Host-side timing of the device's socket (loosely timed annotations).
struct DeviceTiming {
  // One register access: a PCIe MMIO round trip is of the order of a microsecond.
  sc_core::sc_time reg_latency = sc_core::sc_time(500, sc_core::SC_NS);
  // A device-memory copy: latency plus bytes at the link's bandwidth (PCIe 3.0 x16 moves about
  // 12 GB/s of payload).
  sc_core::sc_time copy_latency = sc_core::sc_time(1, sc_core::SC_US);
  double copy_bytes_per_ns = 12.0;
  bool dmi = true;  // grant DMI to device memory where it is safe (see get_direct_mem_ptr)
};

// Builds a configuration the way `locsim run --platform P --set k=v ...` does; throws
// ConfigError naming the platform or key.
GpuConfig gpu_config_for(const std::string& platform, const std::vector<std::string>& sets = {});

class GpuDevice : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<GpuDevice> host;
  sc_core::sc_out<bool> irq;  // high from a launch's completion until ACK (if enabled)

  // The device always keeps device memory contents (data-integrity mode is forced on): a
  // device without data would be useless to a host.
  GpuDevice(sc_core::sc_module_name name, GpuConfig cfg, const DeviceTiming& timing = {});
  ~GpuDevice() override;

  GpuPlatform& platform() { return *gpu_; }
  bool busy() const { return busy_; }
  // Failures so far (data integrity, watchdog, protocol) plus, when idle, the conservation
  // checks; empty when everything is fine. A failure also stops the simulation (sc_stop).
  std::vector<std::string> failures() const { return gpu_->check_quiescent(); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);

  // Register file access; false for an address outside the map or a bad access size.
  bool reg_read(std::uint64_t off, std::uint8_t* data, unsigned len) const;
  bool reg_write(std::uint64_t off, const std::uint8_t* data, unsigned len,
                 const sc_core::sc_time& delay);
  std::uint64_t reg_value(std::uint64_t off) const;
  void command(std::uint32_t bits, const sc_core::sc_time& delay);
  void load_command();
  void query_stat();
  void select_ds();
  void fail_command(std::uint32_t code, const std::string& msg);
  std::string command_text() const;

  void launch_method();
  void drain_method();
  void irq_method();
  void on_idle();
  void revoke_dmi();

  GpuConfig cfg_;
  DeviceTiming timing_;
  std::unique_ptr<GpuPlatform> gpu_;
  std::vector<std::unique_ptr<Workload>> workloads_;  // every loaded workload (kernels live on)
  const Workload* loaded_ = nullptr;
  bool busy_ = false, done_ = false, irq_enable_ = true;
  std::uint32_t error_ = devreg::kErrNone;
  std::uint32_t launches_ = 0, ds_index_ = 0, last_ctas_ = 0;
  std::uint64_t last_cycles_ = 0, last_warp_insts_ = 0, stat_value_ = 0, stat_count_ = 0;
  std::uint64_t ds_base_ = 0, ds_bytes_ = 0;
  std::size_t first_kernel_ = 0;  // dispatcher record index of the running launch's first kernel
  StatSnapshot launch_begin_, launch_end_;
  bool have_launch_stats_ = false;
  char command_[256] = {};
  char message_[256] = {};
  std::set<Addr> dmi_pages_;  // device pages handed out as DMI since the last launch
  sc_core::sc_event launch_ev_, drain_ev_, irq_ev_;
};

}  // namespace locsim
