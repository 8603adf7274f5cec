#include "tlm_components/merge_table_unit.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "model/params.h"
#include "tlm_components/gpu_extension.h"

namespace locsim {

MergeTableModel parse_merge_table_model(const std::string& s) {
  if (s == "tlm") return MergeTableModel::Tlm;
  if (s == "rtl") return MergeTableModel::Rtl;
  if (s == "lockstep") return MergeTableModel::Lockstep;
  throw ConfigError("icc.model: '" + s + "' is not one of tlm, rtl, lockstep");
}

const char* to_string(MergeTableModel m) {
  switch (m) {
    case MergeTableModel::Tlm:
      return "tlm";
    case MergeTableModel::Rtl:
      return "rtl";
    case MergeTableModel::Lockstep:
      return "lockstep";
  }
  return "?";
}

namespace {

const char* outcome_name(MergeOutcome o) {
  switch (o) {
    case MergeOutcome::Merged:
      return "merged";
    case MergeOutcome::Allocated:
      return "allocated";
    case MergeOutcome::Full:
      return "full";
    case MergeOutcome::Uncovered:
      return "uncovered";
  }
  return "?";
}

std::string hex(Addr a) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
  return buf;
}

}  // namespace

MergeOutcome TlmMergeTable::lookup(Payload& gp, Addr line, Cycle) {
  GpuExtension& e = gpu_ext(gp);
  const MergeOutcome o = table_.lookup(line, e.bytes, e.sm, &gp);
  last_ = o == MergeOutcome::Full ? -1 : table_.index_of(line);
  return o;
}

bool TlmMergeTable::release(Payload& gp, Addr line, Cycle, std::vector<std::uint16_t>& sms,
                            std::vector<Payload*>& merged) {
  const GpuExtension& e = gpu_ext(gp);
  const int idx = table_.index_of(line);
  const bool released = table_.release(line, e.bytes, e.sm, sms, merged);
  last_ = released ? idx : -1;
  return released;
}

bool TlmMergeTable::probe_release(Payload& gp, Addr line, Cycle, std::vector<std::uint16_t>& sms) {
  const GpuExtension& e = gpu_ext(gp);
  const auto* entry = table_.releasing(line, e.bytes);
  if (!entry) return false;
  sms.push_back(e.sm);
  sms.insert(sms.end(), entry->sms.begin() + 1, entry->sms.end());
  return true;
}

std::string TlmMergeTable::describe(Addr line) const {
  const auto* e = table_.find(line);
  std::ostringstream s;
  if (!e) {
    s << "no entry for " << hex(line);
  } else {
    std::vector<std::uint16_t> sms(e->sms);
    std::sort(sms.begin(), sms.end());
    sms.erase(std::unique(sms.begin(), sms.end()), sms.end());
    s << "entry " << table_.index_of(line) << " {line " << hex(line) << ", bytes "
      << hex(e->fetched.w[1]) << ":" << hex(e->fetched.w[0]) << ", leader tag "
      << static_cast<std::uint32_t>(gpu_ext(*e->leader).id) << ", sms";
    for (std::uint16_t sm : sms) s << " " << (sm - first_sm_);
    s << "}";
  }
  s << ", " << table_.in_use() << " in use";
  return s.str();
}

LockstepMergeTable::LockstepMergeTable(std::unique_ptr<MergeTableUnit> dut,
                                       std::unique_ptr<MergeTableUnit> ref, std::string unit,
                                       DivergenceFn on_divergence)
    : dut_(std::move(dut)),
      ref_(std::move(ref)),
      unit_(std::move(unit)),
      on_divergence_(std::move(on_divergence)) {}

void LockstepMergeTable::report(const char* op, const Payload& gp, Addr line, Cycle now,
                                const std::string& dut, const std::string& ref,
                                const std::string& dut_state, const std::string& ref_state) {
  diverged_ = true;
  const GpuExtension& e = gpu_ext(const_cast<Payload&>(gp));
  std::ostringstream s;
  s << unit_ << ": RTL/TLM merge-table divergence at cycle " << now << " on " << op << " of line "
    << hex(line) << " (SM " << e.sm << ", tag " << static_cast<std::uint32_t>(e.id) << "): RTL "
    << dut << " [" << dut_state << "]; TLM " << ref << " [" << ref_state << "]";
  on_divergence_(s.str());
}

MergeOutcome LockstepMergeTable::lookup(Payload& gp, Addr line, Cycle now) {
  const MergeOutcome d = dut_->lookup(gp, line, now);
  const MergeOutcome r = ref_->lookup(gp, line, now);
  if (diverged_) return d;
  ++checks_;
  if (d == r && dut_->last_entry() == ref_->last_entry() && dut_->in_use() == ref_->in_use())
    return d;
  auto answer = [](MergeOutcome o, const MergeTableUnit& u) {
    return std::string(outcome_name(o)) + " entry " + std::to_string(u.last_entry()) + ", " +
           std::to_string(u.in_use()) + " in use";
  };
  report("read", gp, line, now, answer(d, *dut_), answer(r, *ref_), dut_->describe(line),
         ref_->describe(line));
  return d;
}

void LockstepMergeTable::bypass(Payload& gp, Addr line, Cycle now) {
  dut_->bypass(gp, line, now);
  ref_->bypass(gp, line, now);
  if (diverged_) return;
  ++checks_;
  if (dut_->in_use() == ref_->in_use()) return;
  auto answer = [](const MergeTableUnit& u) {
    return "bypass, " + std::to_string(u.in_use()) + " in use";
  };
  report("write", gp, line, now, answer(*dut_), answer(*ref_), dut_->describe(line),
         ref_->describe(line));
}

namespace {

// A release as compared: broadcast order may differ (SM order in RTL, merge order in TLM), so
// the SMs and the merged requests are compared as sorted lists.
struct ReleaseAnswer {
  bool released;
  int entry;
  std::uint32_t in_use;
  std::vector<std::uint16_t> sms;
  std::vector<std::uint64_t> ids;

  ReleaseAnswer(bool r, const MergeTableUnit& u, const std::vector<std::uint16_t>& s,
                const std::vector<Payload*>& m)
      : released(r), entry(r ? u.last_entry() : -1), in_use(u.in_use()), sms(s) {
    std::sort(sms.begin(), sms.end());
    for (Payload* p : m) ids.push_back(gpu_ext(*p).id);
    std::sort(ids.begin(), ids.end());
  }
  bool operator==(const ReleaseAnswer& o) const {
    return released == o.released && entry == o.entry && in_use == o.in_use && sms == o.sms &&
           ids == o.ids;
  }
  std::string str() const {
    std::ostringstream o;
    if (!released) {
      o << "direct";
    } else {
      o << "released entry " << entry << " to SMs";
      for (std::uint16_t x : sms) o << " " << x;
      o << ", merged ids";
      for (std::uint64_t x : ids) o << " " << x;
    }
    o << ", " << in_use << " in use";
    return o.str();
  }
};

}  // namespace

bool LockstepMergeTable::release(Payload& gp, Addr line, Cycle now, std::vector<std::uint16_t>& sms,
                                 std::vector<Payload*>& merged) {
  // The TLM entry is gone after the operation: keep its state for a diagnostic. (The RTL's
  // debug port still shows a freed entry's fields, so its state is read afterwards.)
  const std::string ref_before = diverged_ ? "" : ref_->describe(line);
  const bool d = dut_->release(gp, line, now, sms, merged);
  ref_sms_.clear();
  ref_merged_.clear();
  const bool r = ref_->release(gp, line, now, ref_sms_, ref_merged_);
  if (diverged_) return d;
  ++checks_;
  const ReleaseAnswer da(d, *dut_, sms, merged), ra(r, *ref_, ref_sms_, ref_merged_);
  if (!(da == ra))
    report("reply", gp, line, now, da.str(), ra.str(), dut_->describe(line),
           "before: " + ref_before);
  return d;
}

bool LockstepMergeTable::probe_release(Payload& gp, Addr line, Cycle now,
                                       std::vector<std::uint16_t>& sms) {
  const std::size_t first = sms.size();
  const bool d = dut_->probe_release(gp, line, now, sms);
  ref_sms_.clear();
  const bool r = ref_->probe_release(gp, line, now, ref_sms_);
  if (diverged_) return d;
  ++probes_;
  dut_sorted_.assign(sms.begin() + static_cast<std::ptrdiff_t>(first), sms.end());
  std::sort(dut_sorted_.begin(), dut_sorted_.end());
  std::sort(ref_sms_.begin(), ref_sms_.end());
  if (d == r && dut_sorted_ == ref_sms_) return d;
  auto answer = [](bool released, const std::vector<std::uint16_t>& s) {
    std::string o = released ? "would release to SMs" : "direct";
    for (std::uint16_t x : s) o += " " + std::to_string(x);
    return o;
  };
  report("reply probe", gp, line, now, answer(d, dut_sorted_), answer(r, ref_sms_),
         dut_->describe(line), ref_->describe(line));
  return d;
}

void check_rtl_merge_table(std::uint32_t entries, std::uint32_t sms, std::uint32_t line_bytes) {
  const std::vector<std::uint32_t> sizes = rtl_merge_table_sizes();
  if (sizes.empty())
    throw ConfigError(
        "icc.model: this locsim was built without Verilator, so it has no RTL merge table "
        "(install Debian's verilator and reconfigure)");
  if (std::find(sizes.begin(), sizes.end(), entries) == sizes.end()) {
    std::string list;
    for (std::uint32_t n : sizes) list += (list.empty() ? "" : ", ") + std::to_string(n);
    throw ConfigError("icc.merge_entries: the RTL merge table is Verilated for " + list +
                      " entries, not " + std::to_string(entries) +
                      " (add the size to the CMake list LOCSIM_ICC_RTL_ENTRIES)");
  }
  // The RTL's SMS and MASK_BITS parameters (rtl/CMakeLists.txt).
  if (sms > 32)
    throw ConfigError("icc.model: the RTL merge table serves at most 32 SMs per cluster, not " +
                      std::to_string(sms));
  if (line_bytes > 128)
    throw ConfigError("icc.model: the RTL merge table holds lines of at most 128 bytes, not " +
                      std::to_string(line_bytes));
}

#if !LOCSIM_HAVE_RTL
std::vector<std::uint32_t> rtl_merge_table_sizes() {
  return {};
}

std::unique_ptr<MergeTableUnit> make_rtl_merge_table(const char*, std::uint32_t entries,
                                                     std::uint32_t sms, std::uint32_t,
                                                     std::uint32_t line_bytes,
                                                     std::function<void(const std::string&)>) {
  check_rtl_merge_table(entries, sms, line_bytes);  // throws: no sizes
  return nullptr;
}
#endif

}  // namespace locsim
