// Miss-status holding registers: one entry per outstanding line, each merging up to max_merged
// requests (the first included). Template on the request handle so tests can use ints.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace locsim {

template <class Req>
class MshrTable {
 public:
  MshrTable(std::uint32_t entries, std::uint32_t max_merged)
      : entries_(entries), max_merged_(max_merged) {}

  std::uint32_t capacity() const { return entries_; }
  std::uint32_t max_merged() const { return max_merged_; }
  std::uint32_t in_use() const { return static_cast<std::uint32_t>(table_.size()); }
  bool full() const { return table_.size() >= entries_; }
  bool has(Addr line) const { return table_.count(line) != 0; }
  // True if an entry exists for line and it still has merge room.
  bool can_merge(Addr line) const {
    auto it = table_.find(line);
    return it != table_.end() && it->second.size() < max_merged_;
  }
  // Precondition: !full() && !has(line).
  void allocate(Addr line, Req r) { table_[line].push_back(std::move(r)); }
  // Precondition: can_merge(line).
  void merge(Addr line, Req r) { table_[line].push_back(std::move(r)); }
  // The fill for line arrived: returns its requests in arrival order and frees the entry.
  std::vector<Req> release(Addr line) {
    std::vector<Req> out;
    auto it = table_.find(line);
    if (it == table_.end()) return out;
    out = std::move(it->second);
    table_.erase(it);
    return out;
  }
  const std::vector<Req>* find(Addr line) const {
    auto it = table_.find(line);
    return it == table_.end() ? nullptr : &it->second;
  }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& kv : table_) f(kv.first, kv.second);
  }

 private:
  std::uint32_t entries_;
  std::uint32_t max_merged_;
  std::unordered_map<Addr, std::vector<Req>> table_;
};

}  // namespace locsim
