// Transaction timelines in Chrome's trace-event format (opens in Perfetto or chrome://tracing):
// one track per block, one slice per stay of a transaction in a block, a flow arrow following
// each transaction from block to block, and counter tracks (IPC, NoC and DRAM bandwidth).
// Off unless `locsim run --timeline` installs one; then GpuExtension::at and the payload pool
// report each move here. Events are streamed to the file, so memory stays bounded by the
// transactions in flight.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>
#include <systemc>
#include <unordered_map>
#include <unordered_set>

namespace locsim {

struct GpuExtension;

class Timeline {
 public:
  // Slices overlapping [start_ps, end_ps] are written.
  Timeline(const std::string& path, std::uint64_t start_ps, std::uint64_t end_ps);
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // The process's active timeline (one elaboration per process), nullptr when off.
  static Timeline* active() { return active_; }
  void install() { active_ = this; }

  // `e` leaves its current block for `to` now (GpuExtension::at).
  void moved(const GpuExtension& e, const char* to);
  // `e` returns to the payload pool: its last stay ends.
  void retired(const GpuExtension& e);
  // Counter tracks at `ps` (names and values).
  void counter(std::uint64_t ps, const char* name, double value);
  // Writes the closing bracket; true if every write succeeded.
  bool close();
  std::uint64_t slices() const { return slices_; }

 private:
  void slice(const GpuExtension& e, std::uint64_t from_ps, std::uint64_t to_ps);
  std::uint32_t track(const char* block);
  void event(const std::string& json);

  static Timeline* active_;
  std::ofstream out_;
  std::uint64_t start_ps_, end_ps_;
  bool first_ = true, closed_ = false;
  std::uint64_t slices_ = 0;
  std::unordered_map<std::string, std::uint32_t> tracks_;
  // A miss payload's arrow continues its parent's: payload -> the id of the arrow it is on,
  // for the payloads in flight.
  std::uint64_t arrow_of(const GpuExtension& e);
  std::unordered_map<std::uint64_t, std::uint64_t> arrow_;
  std::unordered_set<std::uint64_t> flowing_;  // arrows that have started
};

}  // namespace locsim
