#include "tlm_components/timeline.h"

#include <cstdio>
#include <sstream>

#include "tlm_components/gpu_extension.h"
#include "tlm_components/sim_time.h"

namespace locsim {

Timeline* Timeline::active_ = nullptr;

namespace {
// Trace-event timestamps are microseconds.
std::string us(std::uint64_t ps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", double(ps) / 1e6);
  return buf;
}
std::uint64_t ps_of(const sc_core::sc_time& t) {
  return static_cast<std::uint64_t>(t.to_seconds() * 1e12 + 0.5);
}
}  // namespace

Timeline::Timeline(const std::string& path, std::uint64_t start_ps, std::uint64_t end_ps)
    : out_(path), start_ps_(start_ps), end_ps_(end_ps) {
  out_ << "[\n";
  event(R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"locsim"}})");
}

Timeline::~Timeline() {
  close();
  if (active_ == this) active_ = nullptr;
}

void Timeline::event(const std::string& json) {
  if (!first_) out_ << ",\n";
  first_ = false;
  out_ << json;
}

std::uint32_t Timeline::track(const char* block) {
  auto it = tracks_.find(block);
  if (it != tracks_.end()) return it->second;
  const std::uint32_t tid = static_cast<std::uint32_t>(tracks_.size()) + 1;
  tracks_.emplace(block, tid);
  event(R"({"ph":"M","pid":1,"tid":)" + std::to_string(tid) +
        R"(,"name":"thread_name","args":{"name":")" + block + R"("}})");
  return tid;
}

void Timeline::slice(const GpuExtension& e, std::uint64_t from, std::uint64_t to) {
  if (to < start_ps_ || from > end_ps_ || !e.where || std::string(e.where) == "pool") return;
  const std::uint32_t tid = track(e.where);
  std::ostringstream os;
  os << R"({"ph":"X","pid":1,"tid":)" << tid << R"(,"name":")" << to_string(e.kind) << " #" << e.id
     << R"(","cat":"txn","ts":)" << us(from) << R"(,"dur":)" << us(to - from) << R"(,"args":{"id":)"
     << e.id << R"(,"sm":)" << e.sm << R"(,"warp":)" << e.warp << R"(,"cta":)" << e.cta << "}}";
  event(os.str());
  // Flow arrow: starts in the first slice of the request, steps through the others and through
  // those of the misses it caused (bound to their slices).
  const std::uint64_t arrow = arrow_of(e);
  const bool started = flowing_.count(arrow) != 0;
  std::ostringstream f;
  f << R"({"ph":")" << (started ? "t" : "s") << R"(","pid":1,"tid":)" << tid
    << R"(,"name":"txn","cat":"flow","id":)" << arrow << R"(,"ts":)" << us(from) << "}";
  event(f.str());
  if (!started) flowing_.insert(arrow);
  ++slices_;
}

std::uint64_t Timeline::arrow_of(const GpuExtension& e) {
  auto it = arrow_.find(e.id);
  if (it != arrow_.end()) return it->second;
  std::uint64_t a = e.id;
  if (e.parent) {
    auto p = arrow_.find(e.parent);
    a = p != arrow_.end() ? p->second : e.parent;
  }
  arrow_.emplace(e.id, a);
  return a;
}

void Timeline::moved(const GpuExtension& e, const char* to) {
  if (e.where == to) return;  // still in the same block
  slice(e, ps_of(e.since), ps_of(sim_time()));
}

void Timeline::retired(const GpuExtension& e) {
  const std::uint64_t now = ps_of(sim_time());
  slice(e, ps_of(e.since), now);
  const std::uint64_t arrow = arrow_of(e);
  arrow_.erase(e.id);
  // The arrow ends when the request that started it returns (its misses return before it).
  if (arrow == e.id && flowing_.erase(arrow) && now >= start_ps_ && now <= end_ps_) {
    std::ostringstream f;
    f << R"({"ph":"f","bp":"e","pid":1,"tid":)" << track(e.where)
      << R"(,"name":"txn","cat":"flow","id":)" << e.id << R"(,"ts":)" << us(now) << "}";
    event(f.str());
  }
}

void Timeline::counter(std::uint64_t ps, const char* name, double value) {
  if (ps < start_ps_ || ps > end_ps_) return;
  std::ostringstream os;
  os << R"({"ph":"C","pid":1,"name":")" << name << R"(","ts":)" << us(ps) << R"(,"args":{"value":)"
     << value << "}}";
  event(os.str());
}

bool Timeline::close() {
  if (!closed_) {
    out_ << "\n]\n";
    out_.flush();
    closed_ = true;
  }
  return static_cast<bool>(out_);
}

}  // namespace locsim
