// The data a cache's lines hold, kept only in the data-integrity mode (--check-data): one line
// of bytes per (set, way) of a tag array, addressed through the tag array.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/tag_array.h"

namespace locsim {

class LineDataArray {
 public:
  // Holds nothing (every at() is nullptr) unless `enabled`.
  LineDataArray(const CacheGeometry& g, bool enabled) {
    if (enabled) bytes_.assign(g.capacity_bytes(), 0);
  }
  bool enabled() const { return !bytes_.empty(); }
  // The bytes of `line` if the tag array holds it, else nullptr (also when disabled).
  std::uint8_t* at(const TagArray& tags, Addr line) {
    if (bytes_.empty()) return nullptr;  // no tag lookup when there is no data to find
    const int way = tags.find(line);
    return way < 0 ? nullptr : frame(tags, tags.set_index(line), way);
  }
  // The bytes of the frame (set, way), whatever it holds now.
  std::uint8_t* frame(const TagArray& tags, std::uint32_t set, int way) {
    if (bytes_.empty()) return nullptr;
    const CacheGeometry& g = tags.geometry();
    return &bytes_[(std::size_t(set) * g.ways + static_cast<std::size_t>(way)) * g.line_bytes];
  }

 private:
  std::vector<std::uint8_t> bytes_;
};

}  // namespace locsim
