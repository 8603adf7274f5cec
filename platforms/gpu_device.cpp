#include "platforms/gpu_device.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "model/params.h"
#include "stimuli/accelsim/accelsim_trace.h"
#include "stimuli/workload_registry.h"

namespace locsim {

GpuConfig gpu_config_for(const std::string& platform, const std::vector<std::string>& sets) {
  ParamRegistry p;
  declare_gpu_params(p);
  load_platform(p, platform);
  for (const std::string& s : sets) p.set_assignment(s);
  return make_gpu_config(p);
}

namespace {
GpuConfig with_data(GpuConfig c) {
  c.check_data = true;
  return c;
}
}  // namespace

GpuDevice::GpuDevice(sc_core::sc_module_name name, GpuConfig cfg, const DeviceTiming& timing)
    : sc_module(name), host("host"), irq("irq"), cfg_(with_data(std::move(cfg))), timing_(timing) {
  gpu_ = std::make_unique<GpuPlatform>("gpu", cfg_);
  gpu_->set_host_driven([this]() { on_idle(); });
  host.register_b_transport(this, &GpuDevice::b_transport);
  host.register_transport_dbg(this, &GpuDevice::transport_dbg);
  host.register_get_direct_mem_ptr(this, &GpuDevice::get_direct_mem_ptr);
  SC_HAS_PROCESS(GpuDevice);
  SC_METHOD(launch_method);
  sensitive << launch_ev_;
  dont_initialize();
  SC_METHOD(drain_method);
  sensitive << drain_ev_;
  dont_initialize();
  SC_METHOD(irq_method);
  sensitive << irq_ev_;
}

GpuDevice::~GpuDevice() = default;

// ---- socket ----------------------------------------------------------------------------------

void GpuDevice::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const std::uint64_t a = gp.get_address();
  const unsigned len = gp.get_data_length();
  gp.set_dmi_allowed(false);
  if (gp.get_byte_enable_ptr()) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (gp.get_streaming_width() < len) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (a >= devreg::kMemBase) {
    // Writes while a launch runs would race with the kernels (and with the golden values loads
    // are checked against); the host must wait for completion, as after a CUDA launch.
    if (gp.is_write() && busy_) {
      gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return;
    }
    if (!gp.is_read() && !gp.is_write()) {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      return;
    }
    const std::size_t n =
        gpu_->debug_access(a - devreg::kMemBase, gp.get_data_ptr(), len, gp.is_write());
    delay += timing_.copy_latency +
             sc_core::sc_time(static_cast<double>(len) / timing_.copy_bytes_per_ns, sc_core::SC_NS);
    gp.set_response_status(n == len ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    gp.set_dmi_allowed(timing_.dmi);
    return;
  }
  bool ok = gp.is_read()    ? reg_read(a, gp.get_data_ptr(), len)
            : gp.is_write() ? reg_write(a, gp.get_data_ptr(), len, delay)
                            : true;
  delay += timing_.reg_latency;
  gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

unsigned int GpuDevice::transport_dbg(tlm::tlm_generic_payload& gp) {
  const std::uint64_t a = gp.get_address();
  const unsigned len = gp.get_data_length();
  if (a >= devreg::kMemBase) {
    if (gp.is_write() && busy_) return 0;
    if (!gp.is_read() && !gp.is_write()) return 0;
    return static_cast<unsigned>(
        gpu_->debug_access(a - devreg::kMemBase, gp.get_data_ptr(), len, gp.is_write()));
  }
  // Debug access to registers reads without side effects; writes are refused (a command
  // register must not fire from a debugger).
  if (gp.is_read() && reg_read(a, gp.get_data_ptr(), len)) return len;
  return 0;
}

bool GpuDevice::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  // A raw pointer into DRAM contents is safe only when DRAM is the whole truth for the page:
  // no launch running, nothing in flight (a write-back could still land), and no L2 line of the
  // page (a dirty line would be newer than DRAM). Granted pages are revoked at the next launch.
  const std::uint64_t a = gp.get_address();
  const Addr page = (a - devreg::kMemBase) & ~Addr{FunctionalMemory::kPageBytes - 1};
  dmi.allow_none();
  if (!timing_.dmi || a < devreg::kMemBase || busy_ || !gpu_->memory_quiet() || !gpu_->backing() ||
      gpu_->l2_holds(page, FunctionalMemory::kPageBytes)) {
    dmi.set_start_address(a);
    dmi.set_end_address(a);
    return false;
  }
  dmi.set_dmi_ptr(gpu_->backing()->page_data(page));
  dmi.set_start_address(devreg::kMemBase + page);
  dmi.set_end_address(devreg::kMemBase + page + FunctionalMemory::kPageBytes - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(timing_.copy_latency);
  dmi.set_write_latency(timing_.copy_latency);
  dmi_pages_.insert(page);
  return true;
}

void GpuDevice::revoke_dmi() {
  if (dmi_pages_.empty()) return;
  host->invalidate_direct_mem_ptr(devreg::kMemBase, ~std::uint64_t{0});
  // What the host wrote through DMI bypassed debug_access: it becomes the golden content now.
  FunctionalMemory& mem = *gpu_->backing();
  for (Addr page : dmi_pages_)
    for (Addr w = page; w < page + FunctionalMemory::kPageBytes; w += 4)
      gpu_->context().golden.commit_word(w, mem.read_word(w));
  dmi_pages_.clear();
}

// ---- registers -------------------------------------------------------------------------------

std::uint64_t GpuDevice::reg_value(std::uint64_t off) const {
  using namespace devreg;
  auto half = [off](std::uint64_t base, std::uint64_t v) -> std::uint64_t {
    return off == base ? (v & 0xffffffffu) : (v >> 32);
  };
  switch (off & ~std::uint64_t{7}) {
    case kCycles:
      return half(kCycles, last_cycles_);
    case kWarpInsts:
      return half(kWarpInsts, last_warp_insts_);
    case kDsBase:
      return half(kDsBase, ds_base_);
    case kDsBytes:
      return half(kDsBytes, ds_bytes_);
    case kStatValue:
      return half(kStatValue, stat_value_);
    case kStatCount:
      return half(kStatCount, stat_count_);
    case kNow:
      return half(kNow, gpu_->now_cycles());
    default:
      break;
  }
  switch (off) {
    case kId:
      return kIdValue;
    case kVersion:
      return kVersionValue;
    case kStatus:
      return (busy_ ? kStBusy : 0) | (done_ ? kStDone : 0) | (error_ ? kStError : 0) |
             (loaded_ ? kStLoaded : 0);
    case kError:
      return error_;
    case kIrqEnable:
      return irq_enable_ ? 1 : 0;
    case kKernels:
      return loaded_ ? loaded_->kernels().size() : 0;
    case kLaunches:
      return launches_;
    case kDsCount:
      return loaded_ ? loaded_->kernels().empty() ? 0 : loaded_->kernels()[0]->data().size() : 0;
    case kDsIndex:
      return ds_index_;
    case kCtas:
      return last_ctas_;
    default:
      return 0;  // CTRL reads as 0
  }
}

bool GpuDevice::reg_read(std::uint64_t off, std::uint8_t* data, unsigned len) const {
  using namespace devreg;
  if (off >= kCommand && off + len <= kMessage + sizeof(message_)) {
    for (unsigned i = 0; i < len; ++i) {
      const std::uint64_t o = off + i;
      data[i] =
          static_cast<std::uint8_t>(o < kMessage ? command_[o - kCommand] : message_[o - kMessage]);
    }
    return true;
  }
  if (len != 4 || (off & 3) || off > kCtas) return false;
  const std::uint32_t v = static_cast<std::uint32_t>(reg_value(off));
  std::memcpy(data, &v, 4);
  return true;
}

bool GpuDevice::reg_write(std::uint64_t off, const std::uint8_t* data, unsigned len,
                          const sc_core::sc_time& delay) {
  using namespace devreg;
  if (off >= kCommand && off + len <= kCommand + sizeof(command_)) {
    std::memcpy(command_ + (off - kCommand), data, len);
    return true;
  }
  if (len != 4 || (off & 3)) return false;
  std::uint32_t v;
  std::memcpy(&v, data, 4);
  switch (off) {
    case kCtrl:
      command(v, delay);
      return true;
    case kIrqEnable:
      irq_enable_ = v & 1u;
      irq_ev_.notify(sc_core::SC_ZERO_TIME);
      return true;
    case kDsIndex:
      ds_index_ = v;
      return true;
    default:
      return false;  // read-only or unmapped
  }
}

void GpuDevice::fail_command(std::uint32_t code, const std::string& msg) {
  error_ = code;
  std::memset(message_, 0, sizeof(message_));
  std::strncpy(message_, msg.c_str(), sizeof(message_) - 1);
}

std::string GpuDevice::command_text() const {
  return std::string(command_, strnlen(command_, sizeof(command_)));
}

void GpuDevice::command(std::uint32_t bits, const sc_core::sc_time& delay) {
  using namespace devreg;
  if (bits & kCmdAck) {
    done_ = false;
    irq_ev_.notify(sc_core::SC_ZERO_TIME);
  }
  if (bits & (kCmdLoad | kCmdLaunch | kCmdQueryStat | kCmdSelectDs)) {
    error_ = kErrNone;
    std::memset(message_, 0, sizeof(message_));
  }
  if (bits & kCmdLoad) load_command();
  if ((bits & kCmdLaunch) && !error_) {
    if (busy_)
      fail_command(kErrBusy, "launch while a launch runs");
    else if (!loaded_)
      fail_command(kErrNotLoaded, "launch without a loaded workload");
    else {
      // The launch takes effect at the host's local time (the access's annotated delay).
      busy_ = true;
      done_ = false;
      irq_ev_.notify(sc_core::SC_ZERO_TIME);
      launch_ev_.notify(delay);
    }
  }
  if (bits & kCmdQueryStat) query_stat();
  if (bits & kCmdSelectDs) select_ds();
}

void GpuDevice::load_command() {
  using namespace devreg;
  if (busy_) return fail_command(kErrBusy, "load while a launch runs");
  // COMMAND: "NAME [param=value ...]" (the parameters of --set workload.param=value) or
  // "trace PATH/kernelslist.g".
  std::istringstream is(command_text());
  std::string name, tok;
  is >> name;
  try {
    std::unique_ptr<Workload> w;
    if (name.empty()) {
      throw ConfigError("COMMAND is empty: expected a workload name or 'trace PATH'");
    } else if (name == "trace") {
      std::string path;
      if (!(is >> path)) throw ConfigError("'trace' needs the path of a kernelslist.g");
      w = load_accelsim_trace(path);
    } else {
      WorkloadArgs args;
      while (is >> tok) {
        const auto eq = tok.find('=');
        if (eq == std::string::npos || eq == 0)
          throw ConfigError("workload parameter '" + tok + "': expected name=value");
        args[tok.substr(0, eq)] = tok.substr(eq + 1);
      }
      w = make_workload(name, args);
    }
    workloads_.push_back(std::move(w));
    loaded_ = workloads_.back().get();
    ds_index_ = 0;
  } catch (const std::exception& e) {
    fail_command(kErrBadWorkload, e.what());
  }
}

void GpuDevice::query_stat() {
  using namespace devreg;
  const std::string q = command_text();
  const auto dot = q.find('.');
  if (dot == std::string::npos)
    return fail_command(kErrUnknownStat, "statistic '" + q + "': expected kind.name");
  // Over the last completed launch (the whole run so far before the first one).
  StatRegistry& stats = gpu_->context().stats;
  const StatSnapshot now = stats.snapshot();
  const auto rows = have_launch_stats_ ? stats.aggregate(launch_begin_, launch_end_)
                                       : stats.aggregate(StatSnapshot{}, now);
  for (const AggregateStat& s : rows) {
    if (s.kind != q.substr(0, dot) || s.name != q.substr(dot + 1)) continue;
    stat_value_ = s.is_distribution ? s.sum : s.value;
    stat_count_ = s.is_distribution ? s.count : 0;
    return;
  }
  fail_command(kErrUnknownStat, "unknown statistic '" + q + "' (see docs/stats.md)");
}

void GpuDevice::select_ds() {
  using namespace devreg;
  const std::uint64_t n = reg_value(kDsCount);
  if (ds_index_ >= n)
    return fail_command(kErrBadIndex, "DS_INDEX " + std::to_string(ds_index_) + " >= DS_COUNT " +
                                          std::to_string(n));
  const DataStructure& d = loaded_->kernels()[0]->data()[ds_index_];
  ds_base_ = d.base;
  ds_bytes_ = d.bytes;
  std::memset(message_, 0, sizeof(message_));
  std::strncpy(message_, d.name.c_str(), sizeof(message_) - 1);
}

// ---- launches --------------------------------------------------------------------------------

void GpuDevice::launch_method() {
  revoke_dmi();
  first_kernel_ = gpu_->dispatcher().kernels().size();
  launch_begin_ = gpu_->context().stats.snapshot();
  try {
    gpu_->launch(*loaded_);
  } catch (const std::exception& e) {
    busy_ = false;
    fail_command(devreg::kErrLaunch, e.what());
    return;
  }
  if (loaded_->kernels().empty()) on_idle();
}

void GpuDevice::on_idle() {
  // The last CTA has finished; completion waits until its memory traffic (write-backs) has
  // drained, so that the host then sees a quiet device (like a stream synchronisation).
  drain_ev_.notify(sc_core::SC_ZERO_TIME);
}

void GpuDevice::drain_method() {
  if (!gpu_->memory_quiet()) {
    next_trigger(gpu_->dispatcher().clock().period() * 16.0);
    return;
  }
  launch_end_ = gpu_->context().stats.snapshot();
  have_launch_stats_ = true;
  const auto& recs = gpu_->dispatcher().kernels();
  last_ctas_ = 0;
  last_cycles_ = 0;
  if (first_kernel_ < recs.size()) {
    last_cycles_ = recs.back().end - recs[first_kernel_].start;
    for (std::size_t k = first_kernel_; k < recs.size(); ++k) last_ctas_ += recs[k].ctas;
  }
  last_warp_insts_ = 0;
  for (const AggregateStat& s : gpu_->context().stats.aggregate(launch_begin_, launch_end_))
    if (s.kind == "sm" && s.name == "warp_insts") last_warp_insts_ = s.value;
  ++launches_;
  busy_ = false;
  done_ = true;
  irq_ev_.notify(sc_core::SC_ZERO_TIME);
}

void GpuDevice::irq_method() {
  // The one driver of the line (register writes come from the host's processes).
  irq.write(done_ && irq_enable_);
}

}  // namespace locsim
