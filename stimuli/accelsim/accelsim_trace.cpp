// Accel-Sim trace reader (see accelsim_trace.h and docs/traces.md).
#include "stimuli/accelsim/accelsim_trace.h"

#include <fcntl.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "model/params.h"
#include "model/scoreboard.h"
#include "stimuli/kernel_list_workload.h"

namespace locsim {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw ConfigError(where + ": " + what);
}

std::string at(const std::string& file, std::uint64_t line) {
  return file + ":" + std::to_string(line);
}

// An error location ("FILE:LINE") formatted only when an error is reported: the trace readers
// parse every instruction line twice (index, then stream), and building the string per line
// cost more than parsing it.
class Where {
 public:
  Where(const std::string& file, std::uint64_t line) : file_(&file), line_(line) {}
  explicit Where(const std::string& text) : text_(&text) {}
  std::string str() const { return text_ ? *text_ : at(*file_, line_); }

 private:
  const std::string* file_ = nullptr;
  std::uint64_t line_ = 0;
  const std::string* text_ = nullptr;
};

[[noreturn]] void fail(const Where& where, const std::string& what) {
  fail(where.str(), what);
}

// parse_trace_inst() on a string_view with a lazily formatted location (defined below).
void parse_inst(std::string_view line, const TraceKernelInfo& info, bool last,
                const std::vector<TraceMemcpy>& regions, const Where& where, WarpInst& out,
                bool fill = true);
// True if `line` is an instruction line that check_text() and parse_inst() accept, found
// without either: its static part is one parsed before and TailReader reads the rest. False says
// nothing (check the line in full).
bool check_inst_fast(std::string_view line, const TraceKernelInfo& info);
struct StaticPart;
// check_inst_fast() (fill false: `addr` null) or the fast parse of a streamed line, on the
// bytes [p, e) of a read buffer, before the line's end is known (defined below). `step`, if not
// null, gets the stride of a full warp's base + stride line read by the short path. `fast`:
// 1 + info.lineinfo (StaticPart::fast), kept by the callers' loops.
inline __attribute__((always_inline)) const char* fast_line(const char* p, const char* e,
                                                            const TraceKernelInfo& info,
                                                            unsigned fast, Addr* addr,
                                                            const StaticPart*& sp,
                                                            std::uint64_t* step = nullptr);
// fast_inst() for the usual line alone: an instruction without operands (not a memory access)
// whose static part is the previous one's successor (`prev` updated), else nullptr. Inline: a
// small function, so that the warp stream's next() needs no frame for it.
// `fast`: 1 + the kernel's lineinfo (StaticPart::plain).
inline __attribute__((always_inline)) const char* plain_line(const char* p, const char* e,
                                                             unsigned fast, bool last,
                                                             WarpInst& out,
                                                             const StaticPart*& prev);
// fast_inst() for the usual memory line alone: a global access read by the short base + stride
// path whose static part (of 16 bytes or more) is the previous one's successor, else nullptr.
// Inline and without calls, so that the warp stream's next_other() needs no frame for it.
inline __attribute__((always_inline)) const char* global_line(
    const char* p, const char* e, unsigned fast, const std::vector<TraceMemcpy>& regions,
    WarpInst& out, const StaticPart*& prev);
// fast_line() for the index's usual line alone, without calls: its static part (of 16 bytes or
// more) is `sp`'s successor (`sp` updated) and it has no operands or is read by the short base +
// stride path; else nullptr (fast_line() then tries it).
inline __attribute__((always_inline)) const char* quick_line(const char* p, const char* e,
                                                             unsigned fast, const StaticPart*& sp);
// A warp stream's hint before its first line (defined below): a static part that matches no
// line, so that the stream's hint is never null.
const StaticPart* warp_start();
// fast_line() with `out` filled as parse_inst() fills it. `prev`: the static part of the
// stream's previous line (nullptr at first), updated.
const char* fast_inst(const char* p, const char* e, const TraceKernelInfo& info, bool last,
                      const std::vector<TraceMemcpy>& regions, WarpInst& out,
                      const StaticPart*& prev);

std::string_view trim_slow(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Without leading spaces or tabs and trailing spaces, tabs or CRs. Every line is trimmed (twice
// for an instruction line): the usual line, which has none, returns at once.
inline std::string_view trim(std::string_view s) {
  if (!s.empty() && s.front() != ' ' && s.front() != '\t' && s.back() > ' ') return s;
  return trim_slow(s);
}

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// Index of the first space, tab or CR at or after i (s.size() if none). Every instruction line is
// split twice (indexed, then streamed), so tokens are scanned eight bytes at a time: a byte below
// 0x21 is a candidate (the lowest flagged byte of the word is exact), checked one by one.
std::size_t next_ws(std::string_view s, std::size_t i) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr std::uint64_t k01 = 0x0101010101010101ull, k80 = 0x8080808080808080ull;
  while (i + 8 <= s.size()) {
    std::uint64_t x;
    std::memcpy(&x, s.data() + i, 8);
    const std::uint64_t m = (x - 0x21 * k01) & ~x & k80;
    if (!m) {
      i += 8;
      continue;
    }
    const std::size_t p = i + (static_cast<unsigned>(__builtin_ctzll(m)) >> 3);
    if (is_ws(s[p])) return p;
    i = p + 1;
  }
#endif
  while (i < s.size() && !is_ws(s[i])) ++i;
  return i;
}

// The tokens of an instruction line, read left to right (no token list is built: every line is
// read twice, indexed then streamed).
class TokenCursor {
 public:
  explicit TokenCursor(std::string_view s) : s_(s) {}
  // The next token into `t`; false at the end of the line.
  bool next(std::string_view& t) {
    std::size_t i = i_;
    while (i < s_.size() && is_ws(s_[i])) ++i;
    if (i >= s_.size()) {
      i_ = i;
      return false;
    }
    const std::size_t j = next_ws(s_, i);
    t = s_.substr(i, j - i);
    i_ = j;
    return true;
  }
  // Skips separators; then the offset of the next token (the line's size at the end).
  std::size_t at_token() {
    while (i_ < s_.size() && is_ws(s_[i_])) ++i_;
    return i_;
  }
  std::size_t offset() const { return i_; }
  std::string_view line() const { return s_; }
  void skip_to(std::size_t i) { i_ = i; }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

// Value of each byte as a hex digit, 16 for anything else (one lookup per digit: every address
// of a trace is parsed twice).
struct HexDigits {
  std::array<std::uint8_t, 256> v{};
  HexDigits() {
    v.fill(16);
    for (int c = 0; c < 10; ++c) v['0' + c] = static_cast<std::uint8_t>(c);
    for (int c = 0; c < 6; ++c) {
      v['a' + c] = static_cast<std::uint8_t>(10 + c);
      v['A' + c] = static_cast<std::uint8_t>(10 + c);
    }
  }
};
const HexDigits kHexDigits;

// Eight hex digits (the first in the lowest byte) to their value, or false if any byte is not a
// hex digit: all eight checked and converted at once (every address of a trace is parsed
// twice).
inline bool hex8(const char* p, std::uint64_t& v) {
  constexpr std::uint64_t k01 = 0x0101010101010101ull, k80 = 0x8080808080808080ull;
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  // With no byte at or above 0x80, x + (0x80 - lo) sets a byte's top bit iff the byte is >= lo
  // and x + (0x7f - hi) iff it is > hi, without carries between bytes.
  const std::uint64_t l = x | 0x20 * k01;  // 'A'-'F' -> 'a'-'f' (digits are unchanged)
  const std::uint64_t digit = (x + (0x80 - '0') * k01) & ~(x + (0x7f - '9') * k01);
  const std::uint64_t alpha = (l + (0x80 - 'a') * k01) & ~(l + (0x7f - 'f') * k01);
  if ((x & k80) || ((digit | alpha) & k80) != k80) return false;
  // A digit's value is its low nibble, plus 9 for a letter (bit 6 set).
  std::uint64_t d = (x & 0x0f * k01) + ((x >> 6) & k01) * 9;
  d = ((d << 4) | (d >> 8)) & 0x00ff00ff00ff00ffull;   // byte pairs
  d = ((d << 8) | (d >> 16)) & 0x0000ffff0000ffffull;  // 16-bit pairs
  v = ((d << 16) | (d >> 32)) & 0xffffffffull;
  return true;
}

#if defined(__SSE2__)
// The hex digits that start p[0..16) (all 16 bytes must be readable): returns how many there are
// (0 to 16) and sets `v` to their value if there is at least one. One pass over 16 bytes: the
// addresses of a trace are 16-digit hex fields.
inline __attribute__((always_inline)) unsigned hex16(const char* p, std::uint64_t& v) {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i l = _mm_or_si128(x, _mm_set1_epi8(0x20));  // 'A'-'F' -> 'a'-'f'
  // Signed compares: a byte >= 0x80 is negative, so neither a digit nor a letter.
  const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                      _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
  const __m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
                                      _mm_cmplt_epi8(l, _mm_set1_epi8('f' + 1)));
  const unsigned ok = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(digit, alpha)));
  const unsigned n = static_cast<unsigned>(__builtin_ctz(~ok));  // bit 16 of ~ok is set
  if (n == 0) return 0;
  // Nibble values (low four bits, plus 9 for a letter; kept to four bits past the digits), then
  // byte pairs (first << 4 | second) packed into the low eight bytes, first pair lowest.
  __m128i d =
      _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)), _mm_and_si128(alpha, _mm_set1_epi8(9)));
  d = _mm_and_si128(d, _mm_set1_epi8(0x0f));
  d = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(d, 4), _mm_srli_epi16(d, 8)),
                    _mm_set1_epi16(0x00ff));
  d = _mm_packus_epi16(d, d);
  std::uint64_t w;
  std::memcpy(&w, &d, 8);
  v = __builtin_bswap64(w) >> (4 * (16 - n));
  return n;
}
#endif

bool parse_hex(std::string_view t, std::uint64_t& v) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  const std::size_t n = t.size();
  if (n == 0 || n > 16) return false;
  // The first n % 8 digits through the table, then eight at a time.
  const std::size_t head = n & 7;
  std::uint64_t x = 0;
  // A non-digit's table value (16) sets bit 4 of `bad`: one test after the loop, not per digit.
  unsigned bad = 0;
  for (std::size_t i = 0; i < head; ++i) {
    const unsigned d = kHexDigits.v[static_cast<unsigned char>(t[i])];
    bad |= d;
    x = x << 4 | (d & 15u);
  }
  if (bad > 15) return false;
  for (std::size_t i = head; i < n; i += 8) {
    std::uint64_t w = 0;
    if (!hex8(t.data() + i, w)) return false;
    x = (x << 32) | w;
  }
  v = x;
  return true;
}

bool parse_dec(std::string_view t, std::uint64_t& v) {
  if (t.empty() || t.size() > 19) return false;
  v = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return true;
}

bool parse_sdec(std::string_view t, std::int64_t& v) {
  bool neg = false;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  std::uint64_t u = 0;
  if (!parse_dec(t, u)) return false;
  // Range-checked without negating an int64: -INT64_MIN is undefined behaviour.
  constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;
  if (u > (neg ? kMaxMagnitude : kMaxMagnitude - 1)) return false;
  v = neg ? static_cast<std::int64_t>(~u + 1) : static_cast<std::int64_t>(u);
  return true;
}

std::string quote(std::string_view s) {
  std::string q(s.substr(0, 60));
  if (s.size() > 60) q += "...";
  return "'" + q + "'";
}

// A trace is text: a control byte (NUL, escape, ...) means a binary or corrupted file, which the
// field parsers would otherwise pass on inside an opcode or a kernel name.
void check_text(std::string_view line, const std::string& file, std::uint64_t ln) {
  // Eight bytes at a time while none is below 0x20 or equal to 0x7f (the usual case: the exact
  // per-byte test below then starts at the first word holding such a byte, a tab or CR
  // included, so the first bad byte and its column are the same).
  std::size_t from = 0;
  constexpr std::uint64_t k01 = 0x0101010101010101ull, k80 = 0x8080808080808080ull;
  for (; from + 8 <= line.size(); from += 8) {
    std::uint64_t x;
    std::memcpy(&x, line.data() + from, 8);
    const std::uint64_t y = x ^ (0x7f * k01);  // a 0x7f byte becomes 0
    if ((((x - 0x20 * k01) & ~x) | ((y - k01) & ~y)) & k80) break;
  }
  for (std::size_t i = from; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", c);
      fail(at(file, ln), std::string("binary data (byte ") + hex + " at column " +
                             std::to_string(i + 1) + "): not a text trace");
    }
  }
}

// Slot of an instruction line in a direct-mapped memo of `mask` + 1 entries: a hash of its first
// 16 bytes (the PC and the active mask; the rest of a line at one PC repeats in every warp and
// every loop trip). A collision only parses again.
std::size_t line_slot(std::string_view t, std::size_t mask) {
  std::uint64_t a = 0, b = 0;
  if (t.size() >= 16) {
    std::memcpy(&a, t.data(), 8);
    std::memcpy(&b, t.data() + 8, 8);
  } else {
    for (char c : t) a = a * 131 + static_cast<unsigned char>(c);
  }
  const std::uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  return static_cast<std::size_t>(h >> 40) & mask;
}

// a == b without libstdc++'s out-of-line string_view::compare() (called per line by the memos).
inline bool same_text(const std::string& a, std::string_view b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), b.size()) == 0;
}

std::string dim_text(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// ---- byte sources and a buffered line reader --------------------------------------------------

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t read(char* buf, std::size_t n) = 0;  // 0 at the end
};

struct FdFile {
  int fd = -1;
  std::string path;
  explicit FdFile(std::string p) : path(std::move(p)) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw ConfigError(path + ": cannot open (" + std::strerror(errno) + ")");
  }
  ~FdFile() {
    if (fd >= 0) ::close(fd);
  }
  FdFile(const FdFile&) = delete;
  FdFile& operator=(const FdFile&) = delete;
};

// pread() from a shared descriptor: many streams share one descriptor, each with its own offset.
std::size_t pread_at(const FdFile& f, std::uint64_t& pos, char* buf, std::size_t n) {
  for (;;) {
    ssize_t r = ::pread(f.fd, buf, n, static_cast<off_t>(pos));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw ConfigError(f.path + ": read error (" + std::strerror(errno) + ")");
    pos += static_cast<std::uint64_t>(r);
    return static_cast<std::size_t>(r);
  }
}

class FdSource final : public ByteSource {
 public:
  FdSource(std::shared_ptr<FdFile> f, std::uint64_t pos) : f_(std::move(f)), pos_(pos) {}
  std::size_t read(char* buf, std::size_t n) override { return pread_at(*f_, pos_, buf, n); }

 private:
  std::shared_ptr<FdFile> f_;
  std::uint64_t pos_;
};

// Sequential .xz decoding with liblzma (concatenated streams allowed).
class XzSource final : public ByteSource {
 public:
  explicit XzSource(std::string path) : path_(std::move(path)) {
    f_ = std::fopen(path_.c_str(), "rb");
    if (!f_) throw ConfigError(path_ + ": cannot open (" + std::strerror(errno) + ")");
    if (lzma_stream_decoder(&s_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
      std::fclose(f_);
      throw ConfigError(path_ + ": cannot initialise the xz decoder");
    }
  }
  ~XzSource() override {
    lzma_end(&s_);
    std::fclose(f_);
  }
  XzSource(const XzSource&) = delete;
  XzSource& operator=(const XzSource&) = delete;

  std::size_t read(char* buf, std::size_t n) override {
    if (done_ || n == 0) return 0;
    s_.next_out = reinterpret_cast<std::uint8_t*>(buf);
    s_.avail_out = n;
    while (s_.avail_out == n) {
      if (s_.avail_in == 0 && !in_eof_) {
        s_.next_in = in_;
        s_.avail_in = std::fread(in_, 1, sizeof in_, f_);
        if (s_.avail_in == 0) {
          if (std::ferror(f_)) throw ConfigError(path_ + ": read error");
          in_eof_ = true;
        }
      }
      lzma_ret r = lzma_code(&s_, in_eof_ ? LZMA_FINISH : LZMA_RUN);
      if (r == LZMA_STREAM_END) {
        done_ = true;
        break;
      }
      if (r == LZMA_BUF_ERROR && in_eof_)
        throw ConfigError(path_ + ": truncated xz stream (unexpected end of compressed data)");
      if (r != LZMA_OK)
        throw ConfigError(path_ + ": xz decoding failed (" +
                          (r == LZMA_FORMAT_ERROR ? std::string("not an xz file")
                           : r == LZMA_DATA_ERROR ? std::string("corrupt data")
                                                  : "liblzma error " + std::to_string(r)) +
                          ")");
    }
    return n - s_.avail_out;
  }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  lzma_stream s_ = LZMA_STREAM_INIT;
  std::uint8_t in_[1 << 16];
  bool in_eof_ = false, done_ = false;
};

// Copies from `s` at `pos` (a decoded thread block's text).
std::size_t copy_at(const std::string& s, std::uint64_t& pos, char* buf, std::size_t n) {
  const std::size_t from = static_cast<std::size_t>(std::min<std::uint64_t>(pos, s.size()));
  const std::size_t k = std::min(n, s.size() - from);
  std::memcpy(buf, s.data() + from, k);
  pos += k;
  return k;
}

// Lines without their '\n'; offset() is the source offset of the next unread line.
class LineReader {
 public:
  // Longest line accepted: a mode-0 instruction line of 32 addresses is under 1 KB and a mangled
  // kernel name a few KB; a longer "line" is a binary file, read whole otherwise.
  static constexpr std::size_t kMaxLine = std::size_t{1} << 20;

  // `name` (the file) prefixes the error for an over-long line.
  LineReader(std::unique_ptr<ByteSource> src, std::size_t bufsize, std::uint64_t start = 0,
             std::string name = "")
      : owned_(std::move(src)),
        src_(owned_.get()),
        size_(bufsize),
        own_(new char[bufsize]),
        buf_(own_.get()),
        offset_(start),
        name_(std::move(name)) {}
  // Reads `src` (not owned) through `buf` (`bufsize` bytes, not owned).
  LineReader(ByteSource& src, char* buf, std::size_t bufsize, std::uint64_t start)
      : src_(&src), size_(bufsize), buf_(buf), offset_(start) {}

  // The bytes read and not consumed yet, [p, e) (none until the first next()); a caller that
  // finds a whole line there (with its '\n') takes it with consume_line(), without next().
  const char* peek(const char*& e) const {
    e = buf_ + len_;
    return buf_ + pos_;
  }
  void consume_line(std::size_t n) {
    ++lines_;
    pos_ += n + 1;
    offset_ += n + 1;
  }
  // consume_line() for a reader whose offset() and line count nobody reads (a warp stream's).
  void skip_line(std::size_t n) { pos_ += n + 1; }
  // Moves the bytes not consumed yet to the front of the buffer and reads more after them
  // (peek() then shows them): false if nothing more came (the end, or a full buffer).
  bool refill() {
    if (pos_ > 0) {
      std::memmove(buf_, buf_ + pos_, len_ - pos_);
      len_ -= pos_;
      pos_ = 0;
    }
    if (len_ == size_) return false;
    const std::size_t r = src_->read(buf_ + len_, size_ - len_);
    len_ += r;
    return r > 0;
  }
  // consume_line() for `lines` whole lines of `bytes` bytes in all (their '\n's included).
  void consume_lines(std::size_t bytes, std::uint64_t lines) {
    lines_ += lines;
    pos_ += bytes;
    offset_ += bytes;
  }

  // The next line into `line`: a view into the reader's buffer (or, for a line split across two
  // reads, into its own copy), valid until the next call. No copy is made of a line that lies
  // within one read, which is nearly every line.
  bool next(std::string_view& line) {
    carry_.clear();
    ++lines_;
    for (;;) {
      if (carry_.size() > kMaxLine)
        fail(at(name_, lines_),
             "line longer than " + std::to_string(kMaxLine >> 20) + " MiB: not a text trace");
      if (pos_ == len_) {
        len_ = src_->read(buf_, size_);
        pos_ = 0;
        if (len_ == 0) {
          offset_ += carry_.size();
          line = carry_;
          return !carry_.empty();
        }
      }
      const char* b = buf_ + pos_;
      const void* nl = std::memchr(b, '\n', len_ - pos_);
      if (nl) {
        std::size_t k = static_cast<const char*>(nl) - b;
        if (carry_.empty()) {
          line = std::string_view(b, k);
        } else {
          carry_.append(b, k);
          line = carry_;
        }
        pos_ += k + 1;
        offset_ += line.size() + 1;
        return true;
      }
      carry_.append(b, len_ - pos_);
      pos_ = len_;
    }
  }
  std::uint64_t offset() const { return offset_; }

 private:
  std::unique_ptr<ByteSource> owned_;
  ByteSource* src_;
  std::size_t size_;
  // Not cleared when made (a warp stream makes one per warp): only the bytes read are looked at.
  std::unique_ptr<char[]> own_;
  char* buf_;
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t offset_ = 0;
  std::string name_;
  std::uint64_t lines_ = 0;
  std::string carry_;  // a line split across reads
};

bool ends_with(const std::string& s, const char* suffix) {
  std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

std::unique_ptr<ByteSource> open_source(const std::string& path) {
  if (ends_with(path, ".xz")) return std::make_unique<XzSource>(path);
  return std::make_unique<FdSource>(std::make_shared<FdFile>(path), 0);
}

// ---- the kernel index -------------------------------------------------------------------------

struct WarpLoc {
  std::uint64_t offset = 0;  // plain: file offset of the first instruction line; xz: within TB text
  std::uint32_t line = 0;    // line number of the `insts = N` line
  std::uint32_t insts = 0;
};

// Decodes a .traceg.xz file sequentially and hands out the text of one thread block at a time;
// blocks stay buffered while a warp stream holds them (or until asked for, when decoded early).
class XzTbCache {
 public:
  explicit XzTbCache(std::string path, std::size_t tbs) : path_(std::move(path)), live_(tbs) {}

  std::shared_ptr<const std::string> get(std::uint32_t tb) {
    if (auto p = live_[tb].lock()) return p;
    auto it = pending_.find(tb);
    if (it != pending_.end()) {
      auto p = std::move(it->second);
      pending_.erase(it);
      live_[tb] = p;
      return p;
    }
    if (!rd_ || tb < next_) {  // (re)start from the beginning: an old block asked for again
      rd_ = std::make_unique<LineReader>(std::make_unique<XzSource>(path_), 1 << 16);
      next_ = 0;
    }
    std::string_view line;
    std::string text;
    bool in_tb = false;
    while (rd_->next(line)) {
      std::string_view t = trim(line);
      if (!in_tb) {
        if (t != "#BEGIN_TB") continue;
        in_tb = true;
        text.clear();
      }
      text.append(trim_cr(line));
      text.push_back('\n');
      if (t != "#END_TB") continue;
      in_tb = false;
      const std::uint32_t idx = next_++;
      auto p = std::make_shared<const std::string>(std::move(text));
      text = std::string();
      if (idx == tb) {
        live_[tb] = p;
        return p;
      }
      if (live_[idx].expired()) pending_[idx] = std::move(p);
    }
    throw ConfigError(path_ + ": thread block " + std::to_string(tb) +
                      " not found when decoding (file changed since it was loaded?)");
  }

 private:
  static std::string_view trim_cr(std::string_view v) {
    if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
    return v;
  }
  std::string path_;
  std::unique_ptr<LineReader> rd_;
  std::uint32_t next_ = 0;
  std::vector<std::weak_ptr<const std::string>> live_;
  std::map<std::uint32_t, std::shared_ptr<const std::string>> pending_;
};

struct KernelIndex {
  // Tells kernels apart in the streamed-line memo (never reused, unlike an address).
  const std::uint64_t serial = next_serial();
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> n{0};
    return ++n;
  }
  std::string path;
  bool xz = false;
  TraceKernelInfo info;
  std::vector<TraceMemcpy> regions;
  std::vector<WarpLoc> warps;           // [cta * warps_per_cta + warp]
  std::vector<std::uint32_t> tb_order;  // xz: cta -> position of its block in the file
  // Opened when a kernel's first warp stream is made and closed with its last one, so a run of
  // many kernels holds one descriptor per running kernel, not one per kernel of the trace.
  std::weak_ptr<FdFile> fd;
  std::shared_ptr<FdFile> open_fd() {
    std::shared_ptr<FdFile> f = fd.lock();
    if (!f) {
      f = std::make_shared<FdFile>(path);
      fd = f;
    }
    return f;
  }
  std::unique_ptr<XzTbCache> cache;
  std::uint32_t warps_per_cta = 1;
};

void parse_header_line(std::string_view t, TraceKernelInfo& k, const std::string& where,
                       std::vector<bool>& seen) {
  auto eq = t.find('=');
  if (eq == std::string_view::npos) fail(where, "header line without '=': " + quote(t));
  std::string key(trim(t.substr(1, eq - 1)));
  std::string_view val = trim(t.substr(eq + 1));
  auto num = [&](std::uint64_t max) {
    std::uint64_t v = 0;
    if (!parse_dec(val, v) || v > max)
      fail(where, "-" + key + ": expected a number, got " + quote(val));
    return v;
  };
  auto hex = [&]() {
    std::uint64_t v = 0;
    if (!parse_hex(val, v)) fail(where, "-" + key + ": bad hex value " + quote(val));
    return v;
  };
  auto dim = [&]() {
    Dim3 d;
    std::uint64_t v[3] = {0, 0, 0};
    std::string_view s = val;
    bool ok = s.size() >= 2 && s.front() == '(' && s.back() == ')';
    if (ok) {
      s = s.substr(1, s.size() - 2);
      for (int i = 0; i < 3 && ok; ++i) {
        auto c = s.find(',');
        if ((i < 2) != (c != std::string_view::npos)) ok = false;
        std::string_view part = trim(i < 2 && ok ? s.substr(0, c) : s);
        ok = ok && parse_dec(part, v[i]) && v[i] >= 1 && v[i] <= 0xffffffffu;
        if (i < 2 && ok) s = s.substr(c + 1);
      }
    }
    if (!ok) fail(where, "-" + key + ": expected (x,y,z) with each >= 1, got " + quote(val));
    d.x = static_cast<std::uint32_t>(v[0]);
    d.y = static_cast<std::uint32_t>(v[1]);
    d.z = static_cast<std::uint32_t>(v[2]);
    return d;
  };
  enum { kName, kGrid, kBlock, kVersion };
  if (key == "kernel name") {
    k.name = std::string(val);
    seen[kName] = true;
  } else if (key == "kernel id") {
    k.id = static_cast<std::uint32_t>(num(0xffffffffu));
  } else if (key == "grid dim") {
    k.grid = dim();
    seen[kGrid] = true;
  } else if (key == "block dim") {
    k.block = dim();
    if (k.block.count() > 1024 || std::uint64_t{k.block.x} * k.block.y * k.block.z > 1024)
      fail(where, "-block dim: more than 1024 threads per block");
    seen[kBlock] = true;
  } else if (key == "shmem") {
    k.shmem = static_cast<std::uint32_t>(num(0xffffffffu));
  } else if (key == "nregs") {
    k.nregs = static_cast<std::uint32_t>(num(255));
  } else if (key == "binary version") {
    k.binary_version = static_cast<std::uint32_t>(num(0xffffffffu));
  } else if (key == "cuda stream id") {
    k.stream_id = num(~0ull);
  } else if (key == "shmem base_addr") {
    k.shmem_base = hex();
  } else if (key == "local mem base_addr") {
    k.local_base = hex();
  } else if (key == "nvbit version") {
    k.nvbit_version = std::string(val);
  } else if (key == "accelsim tracer version") {
    std::uint64_t v = num(1000);
    if (v < 3 || v > 5)
      fail(where,
           "unsupported accelsim tracer version " + std::to_string(v) + " (supported: 3, 4, 5)");
    k.version = static_cast<std::uint32_t>(v);
    seen[kVersion] = true;
  } else if (key == "enable lineinfo") {
    k.lineinfo = num(1) == 1;
  }  // other keys (newer tracers) are ignored
}

// The instruction lines that lie whole in a read buffer from `p` to `e` and that fast_line()
// accepts, at most `left`: how many (`p` moves past them, `prev` is fast_line()'s hint, `*rel`
// grows by their length without CRs if kRel: an .xz file). Out of line, so that the loop keeps
// its values in registers (index_kernel has many): the line pointer, the end, the lines left,
// the hint and `fast`, with kRel's offset only where it is used.
template <bool kRel>
__attribute__((noinline)) std::uint32_t check_in_place(const char*& p, const char* e,
                                                       const TraceKernelInfo& info,
                                                       std::uint32_t left, const StaticPart*& prev,
                                                       std::uint64_t* rel) {
  const char* q = p;
  const StaticPart* sp = prev;
  const unsigned fast = 1u + info.lineinfo;
  std::uint64_t r = kRel ? *rel : 0;
  std::uint32_t n = left;
  for (; n != 0; --n) {
    const char* nl = sp ? quick_line(q, e, fast, sp) : nullptr;
    if (!nl) nl = fast_line(q, e, info, fast, nullptr, sp);
    if (!nl) break;
    if (kRel) r += static_cast<std::uint64_t>(nl - q) - (nl > q && nl[-1] == '\r') + 1;
    q = nl + 1;
  }
  p = q;
  prev = sp;
  if (kRel) *rel = r;
  return left - n;
}

// "warp = W\ninsts = N\n" after any empty lines, with W and N of 1 to 9 digits, at the start
// of [p, e): its bytes (W, N and its line count set), else 0 (the lines are then read one by
// one, with the error messages).
std::size_t warp_header(const char* p, const char* e, std::uint32_t& w, std::uint32_t& n,
                        std::uint32_t& lines) {
  const char* q = p;
  std::uint32_t blank = 0;
  while (q < e && *q == '\n') {
    ++q;
    ++blank;
  }
  auto field = [&](std::string_view key, std::uint32_t& v) {
    if (static_cast<std::size_t>(e - q) <= key.size() ||
        std::memcmp(q, key.data(), key.size()) != 0)
      return false;
    q += key.size();
    const char* d = q;
    std::uint32_t x = 0;
    for (unsigned c; q < e && q - d < 10 && (c = static_cast<unsigned char>(*q) - '0') < 10; ++q)
      x = x * 10 + c;
    if (q == d || q - d > 9 || q == e || *q != '\n') return false;
    ++q;
    v = x;
    return true;
  };
  if (!field("warp = ", w) || !field("insts = ", n)) return 0;
  lines = blank + 2;
  return static_cast<std::size_t>(q - p);
}

// One sequential scan: header, structure and every instruction line.
void index_kernel(KernelIndex& k) {
  const std::string& path = k.path;
  LineReader rd(open_source(path), 1 << 20, 0, path);
  std::string_view line;
  std::uint64_t ln = 0;
  std::vector<bool> seen(4, false);
  TraceKernelInfo& info = k.info;
  bool header_done = false;

  enum State { kOutside, kExpectBlock, kInTb, kExpectInsts, kInInsts } st = kOutside;
  std::uint32_t ctas = 0, wpc = 0;
  std::vector<std::uint32_t> tb_line;  // per CTA: line of its `thread block =` line (0: unseen)
  std::vector<bool> warp_seen;
  std::uint32_t cur_cta = 0, cur_warp = 0, warps_in_tb = 0, left = 0, done_insts = 0;
  std::uint32_t tbs_in_file = 0;
  std::uint64_t rel = 0;  // xz: offset within the current block's text
  std::string tb_name;
  WarpInst scratch;
  const StaticPart* prev_sp = nullptr;  // fast_line()'s hint
  const std::uint64_t kMaxCtas = 1ull << 26;
  const std::uint64_t kMaxIndexBytes = std::uint64_t{1} << 30;

  auto finish_header = [&](const std::string& where) {
    static const char* names[] = {"-kernel name", "-grid dim", "-block dim",
                                  "-accelsim tracer version"};
    for (int i = 0; i < 4; ++i)
      if (!seen[i]) fail(where, std::string("missing header '") + names[i] + "'");
    if (std::uint64_t{info.grid.x} * info.grid.y * info.grid.z > kMaxCtas)
      fail(where, "grid dim " + dim_text(info.grid) + " has too many thread blocks");
    ctas = info.grid.count();
    wpc = (info.block.count() + 31) / 32;
    // The index keeps one entry per warp: checked before allocating, so a huge grid is a clear
    // error instead of std::bad_alloc.
    const std::uint64_t index_bytes =
        std::uint64_t{ctas} * wpc * sizeof(WarpLoc) + std::uint64_t{ctas} * 8;
    if (index_bytes > kMaxIndexBytes)
      fail(where, "grid dim " + dim_text(info.grid) + " x block dim " + dim_text(info.block) +
                      " = " + std::to_string(std::uint64_t{ctas} * wpc) +
                      " warps: the trace index would need " + std::to_string(index_bytes >> 20) +
                      " MiB (limit " + std::to_string(kMaxIndexBytes >> 20) + " MiB)");
    // Every thread block takes at least "#BEGIN_TB", "thread block =0,0,0", "#END_TB" and per
    // warp "warp =N", "insts =N" (36 + 17 bytes per warp): a plain file too short for its grid is
    // refused before the index is allocated (a 1 KB file claiming 4M CTAs allocated 550 MB).
    struct stat st;
    const std::uint64_t min_bytes = std::uint64_t{ctas} * (36 + 17 * std::uint64_t{wpc});
    if (!k.xz && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        min_bytes > static_cast<std::uint64_t>(st.st_size))
      fail(where, "grid dim " + dim_text(info.grid) + " x block dim " + dim_text(info.block) +
                      " needs at least " + std::to_string(min_bytes) + " bytes of thread blocks, " +
                      "the file has " + std::to_string(st.st_size));
    k.warps_per_cta = wpc;
    k.warps.assign(std::size_t{ctas} * wpc, WarpLoc{});
    tb_line.assign(ctas, 0);
    if (k.xz) k.tb_order.assign(ctas, 0);
    header_done = true;
  };

  for (;;) {
    if (st == kInInsts) {
      // Most instruction lines are checked where they lie in the read buffer, their end found
      // by the same pass.
      const char* e = nullptr;
      const char* const first = rd.peek(e);
      const char* p = first;
      const std::uint32_t n = k.xz ? check_in_place<true>(p, e, info, left, prev_sp, &rel)
                                   : check_in_place<false>(p, e, info, left, prev_sp, nullptr);
      if (n != 0) {
        rd.consume_lines(static_cast<std::size_t>(p - first), n);
        ln += n;
        done_insts += n;
        left -= n;
        if (left == 0) st = kInTb;
        continue;
      }
    }
    if (st == kInTb) {
      // The usual warp header, taken whole from the read buffer.
      const char* e = nullptr;
      const char* p = rd.peek(e);
      std::uint32_t w = 0, n = 0, lines = 0;
      const std::size_t bytes = warp_header(p, e, w, n, lines);
      if (bytes != 0 && w < wpc && !warp_seen[w]) {
        rd.consume_lines(bytes, lines);
        ln += lines;
        rel += bytes;
        warp_seen[w] = true;
        ++warps_in_tb;
        cur_warp = w;
        WarpLoc& loc = k.warps[std::size_t{cur_cta} * wpc + cur_warp];
        loc.offset = k.xz ? rel : rd.offset();
        loc.line = static_cast<std::uint32_t>(std::min<std::uint64_t>(ln, 0xffffffffu));
        loc.insts = n;
        left = n;
        done_insts = 0;
        st = left ? kInInsts : kInTb;
        continue;
      }
    }
    if (!rd.next(line)) break;
    ++ln;
    std::string_view stripped(line);
    if (!stripped.empty() && stripped.back() == '\r') stripped.remove_suffix(1);
    if (st == kInInsts && check_inst_fast(line, info)) {  // a line at the end of a read
      rel += stripped.size() + 1;
      ++done_insts;
      if (--left == 0) st = kInTb;
      continue;
    }
    check_text(line, path, ln);
    std::string_view t = trim(line);
    if (st != kOutside || t == "#BEGIN_TB") rel += stripped.size() + 1;
    if (!header_done) {
      if (t.empty()) continue;
      if (t.front() == '-') {
        parse_header_line(t, info, at(path, ln), seen);
        continue;
      }
      if (t.front() == '#' && t != "#BEGIN_TB") continue;  // "#traces format = ..." comment
      if (t != "#BEGIN_TB")
        fail(at(path, ln), "expected a '-key = value' header line or #BEGIN_TB, got " + quote(t));
      finish_header(at(path, ln));
    }
    switch (st) {
      case kOutside:
        if (t.empty()) break;
        if (t != "#BEGIN_TB") fail(at(path, ln), "expected #BEGIN_TB, got " + quote(t));
        rel = stripped.size() + 1;
        st = kExpectBlock;
        break;
      case kExpectBlock: {
        if (t.empty()) break;
        static constexpr std::string_view kTb = "thread block =";
        if (t.substr(0, kTb.size()) != kTb)
          fail(at(path, ln), "expected 'thread block = x,y,z', got " + quote(t));
        std::string_view v = trim(t.substr(kTb.size()));
        std::uint64_t c[3] = {0, 0, 0};
        bool ok = true;
        for (int i = 0; i < 3 && ok; ++i) {
          auto comma = v.find(',');
          if ((i < 2) != (comma != std::string_view::npos)) {
            ok = false;
            break;
          }
          ok = parse_dec(trim(i < 2 ? v.substr(0, comma) : v), c[i]);
          if (i < 2) v = v.substr(comma + 1);
        }
        if (!ok) fail(at(path, ln), "bad thread block coordinates " + quote(t));
        tb_name = "(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," +
                  std::to_string(c[2]) + ")";
        if (c[0] >= info.grid.x || c[1] >= info.grid.y || c[2] >= info.grid.z)
          fail(at(path, ln),
               "thread block " + tb_name + " is outside grid dim " + dim_text(info.grid));
        cur_cta = static_cast<std::uint32_t>(c[0] + info.grid.x * (c[1] + info.grid.y * c[2]));
        if (tb_line[cur_cta])
          fail(at(path, ln), "thread block " + tb_name + " appears twice (first at line " +
                                 std::to_string(tb_line[cur_cta]) + ")");
        tb_line[cur_cta] = static_cast<std::uint32_t>(std::min<std::uint64_t>(ln, 0xffffffffu));
        if (k.xz) k.tb_order[cur_cta] = tbs_in_file;
        ++tbs_in_file;
        warp_seen.assign(wpc, false);
        warps_in_tb = 0;
        st = kInTb;
        break;
      }
      case kInTb: {
        if (t.empty()) break;
        if (t == "#END_TB") {
          if (warps_in_tb != wpc)
            fail(at(path, ln), "thread block " + tb_name + " has " + std::to_string(warps_in_tb) +
                                   " warps, block dim " + dim_text(info.block) + " needs " +
                                   std::to_string(wpc));
          st = kOutside;
          break;
        }
        static constexpr std::string_view kW = "warp =";
        std::uint64_t w = 0;
        if (t.substr(0, kW.size()) != kW)
          fail(at(path, ln), "expected 'warp = N' or #END_TB, got " + quote(t));
        if (!parse_dec(trim(t.substr(kW.size())), w))
          fail(at(path, ln), "bad warp number " + quote(t));
        if (w >= wpc)
          fail(at(path, ln), "warp " + std::to_string(w) + " is outside block dim " +
                                 dim_text(info.block) + " (" + std::to_string(wpc) + " warps)");
        if (warp_seen[w])
          fail(at(path, ln),
               "warp " + std::to_string(w) + " appears twice in thread block " + tb_name);
        warp_seen[w] = true;
        ++warps_in_tb;
        cur_warp = static_cast<std::uint32_t>(w);
        st = kExpectInsts;
        break;
      }
      case kExpectInsts: {
        if (t.empty()) break;
        static constexpr std::string_view kI = "insts =";
        std::uint64_t n = 0;
        if (t.substr(0, kI.size()) != kI || !parse_dec(trim(t.substr(kI.size())), n) ||
            n > 0xffffffffu)
          fail(at(path, ln), "expected 'insts = N' after 'warp = " + std::to_string(cur_warp) +
                                 "', got " + quote(t));
        WarpLoc& loc = k.warps[std::size_t{cur_cta} * wpc + cur_warp];
        loc.offset = k.xz ? rel : rd.offset();
        loc.line = static_cast<std::uint32_t>(std::min<std::uint64_t>(ln, 0xffffffffu));
        loc.insts = static_cast<std::uint32_t>(n);
        left = loc.insts;
        done_insts = 0;
        st = left ? kInInsts : kInTb;
        break;
      }
      case kInInsts: {
        if (t.empty()) break;
        if (t[0] == '#' || t.substr(0, 4) == "warp" || t.substr(0, 12) == "thread block")
          fail(at(path, ln), "warp " + std::to_string(cur_warp) + " of thread block " + tb_name +
                                 ": insts = " + std::to_string(done_insts + left) + " but only " +
                                 std::to_string(done_insts) + " instruction lines");
        parse_inst(t, info, left == 1, k.regions, Where(path, ln), scratch, false);
        ++done_insts;
        if (--left == 0) st = kInTb;
        break;
      }
    }
  }
  if (!header_done) finish_header(at(path, ln));
  const std::string end = at(path, ln);
  if (st == kInInsts)
    fail(end, "truncated: warp " + std::to_string(cur_warp) + " of thread block " + tb_name +
                  " has insts = " + std::to_string(done_insts + left) +
                  " but the file ends after " + std::to_string(done_insts) + " instruction lines");
  if (st != kOutside) fail(end, "truncated: thread block " + tb_name + " has no #END_TB");
  for (std::uint32_t c = 0; c < ctas; ++c)
    if (!tb_line[c]) {
      const std::uint32_t x = c % info.grid.x, y = c / info.grid.x % info.grid.y,
                          z = c / info.grid.x / info.grid.y;
      fail(end, std::to_string(tbs_in_file) + " thread blocks, grid dim " + dim_text(info.grid) +
                    " needs " + std::to_string(ctas) + " (thread block (" + std::to_string(x) +
                    "," + std::to_string(y) + "," + std::to_string(z) + ") is missing)");
    }
  if (k.xz)
    k.cache = std::make_unique<XzTbCache>(path, tbs_in_file);
  else
    FdFile check(path);  // readable now; reopened on demand while the kernel runs
}

// Instruction lines already streamed whose instruction has no addresses (all but memory
// instructions), by line_slot(): a byte-identical line of the same kernel with the same "last
// instruction" flag parses to the same WarpInst, which is copied instead. Most of a trace's
// lines repeat in every warp and every loop trip.
struct StreamedLine {
  std::uint64_t kernel = 0;  // KernelIndex::serial; 0: unused
  bool last = false;
  std::string text;
  WarpInst inst;
};
constexpr std::size_t kStreamedLines = 512;

StreamedLine& streamed_line(std::size_t slot) {
  thread_local std::array<StreamedLine, kStreamedLines> memo;
  return memo[slot];
}

// A warp's lines: pread() from the kernel's shared descriptor (plain files) or copied from its
// thread block's decoded text (.xz).
class WarpSource final : public ByteSource {
 public:
  WarpSource(std::shared_ptr<FdFile> f, std::shared_ptr<const std::string> text, std::uint64_t pos)
      : f_(std::move(f)), text_(std::move(text)), pos_(pos) {}
  std::size_t read(char* buf, std::size_t n) override {
    return text_ ? copy_at(*text_, pos_, buf, n) : pread_at(*f_, pos_, buf, n);
  }

 private:
  std::shared_ptr<FdFile> f_;
  std::shared_ptr<const std::string> text_;
  std::uint64_t pos_;
};

// Built in the SM's warp slot (Kernel::emplace_warp_stream) with its read buffer inside: the
// slot's storage, kept for the slot's next warps, holds it, so a warp starts without a heap
// allocation (and without a shared pool's lock).
class TraceWarpStream final : public WarpStream {
 public:
  // Every resident warp holds one (up to 64 per volta SM): 2 KiB holds about 50 usual lines, so a
  // refill is rare, and 640 resident CTAs of SAXPY peak at 48 MB instead of 78 MB with 8 KiB.
  static constexpr std::size_t kBuffer = 2048;
  TraceWarpStream(const std::shared_ptr<KernelIndex>& k, std::uint32_t cta, const WarpLoc& loc)
      : k_(k),
        src_(k->xz ? nullptr : k->open_fd(), k->xz ? k->cache->get(k->tb_order[cta]) : nullptr,
             loc.offset),
        rd_(src_, text_, kBuffer, k->xz ? 0 : loc.offset),
        left_(loc.insts),
        fast_(1u + k->info.lineinfo),
        line_(std::uint64_t{loc.line} + loc.insts) {}
  TraceWarpStream(const TraceWarpStream&) = delete;
  TraceWarpStream& operator=(const TraceWarpStream&) = delete;

  bool next(WarpInst& in) override {
    if (left_ == 0) return false;
    const char* e = nullptr;
    const char* p = rd_.peek(e);
    if (const char* nl = plain_line(p, e, fast_, left_ == 1, in, prev_)) {
      rd_.skip_line(static_cast<std::size_t>(nl - p));
      --left_;
      return true;
    }
    return next_other(in);
  }

 private:
  // Any other line: out of line, so that next() saves no registers for the usual line. The usual
  // memory line here, without a frame; the rest in next_read().
  __attribute__((noinline)) bool next_other(WarpInst& in) {
    const char* e = nullptr;
    const char* p = rd_.peek(e);
    if (const char* nl = global_line(p, e, fast_, k_->regions, in, prev_)) {
      rd_.skip_line(static_cast<std::size_t>(nl - p));
      --left_;
      return true;
    }
    return next_read(in);
  }

  // A line whose static part is not the guess, a warp's first line, one cut by the end of the
  // read buffer...
  __attribute__((noinline)) bool next_read(WarpInst& in) {
    const bool last = left_ == 1;
    const char* e = nullptr;
    const char* p = nullptr;
    const char* nl = nullptr;
    for (bool again = true;; again = false) {  // (one call site: fast_inst() stays inline)
      p = rd_.peek(e);
      nl = fast_inst(p, e, k_->info, last, k_->regions, in, prev_);
      // A warp's first line (nothing read yet) or one cut by the end of the buffer: read on
      // and try again.
      if (nl || !again || (p != e && std::memchr(p, '\n', static_cast<std::size_t>(e - p))) ||
          !rd_.refill())
        break;
    }
    if (nl) {
      rd_.skip_line(static_cast<std::size_t>(nl - p));
      --left_;
      return true;
    }
    return next_line(in, last);
  }

  // A line read and parsed in full (one longer than the buffer, one whose static part is not
  // remembered...): out of line, so next() needs a small frame.
  __attribute__((noinline)) bool next_line(WarpInst& in, bool last) {
    for (;;) {
      const std::uint64_t ln = line_ - left_ + 1;  // this line's number
      if (!rd_.next(buf_))
        fail(at(k_->path, ln), "unexpected end of file (file changed since it was loaded?)");
      std::string_view t = trim(buf_);
      if (t.empty()) {
        ++line_;
        continue;
      }
      StreamedLine& e = streamed_line(line_slot(t, kStreamedLines - 1));
      if (e.kernel == k_->serial && e.last == last && same_text(e.text, t)) {
        in = e.inst;
        --left_;
        return true;
      }
      parse_inst(t, k_->info, last, k_->regions, Where(k_->path, ln), in);
      --left_;
      if (in.op == WarpOp::Compute || in.op == WarpOp::Barrier || in.op == WarpOp::Exit) {
        e.kernel = k_->serial;
        e.last = last;
        e.text.assign(t);
        e.inst = in;
      }
      return true;
    }
  }

  std::shared_ptr<KernelIndex> k_;
  WarpSource src_;
  LineReader rd_;
  std::uint32_t left_;
  const std::uint32_t fast_;  // 1 + lineinfo (plain_line())
  // The number of the warp's last line if no empty line comes between its lines (the `insts = N`
  // line's plus N), plus the empty lines read since: a line's number is this minus the lines left
  // plus 1, worked out only when an error needs it.
  std::uint64_t line_;
  std::string_view buf_;
  const StaticPart* prev_ = warp_start();  // fast_inst()'s hint
  char text_[kBuffer];  // rd_'s buffer (not cleared: only bytes read are looked at)
};

class TraceKernel final : public Kernel {
 public:
  TraceKernel(std::shared_ptr<KernelIndex> k, std::vector<DataStructure> data)
      : k_(std::move(k)), data_(std::move(data)) {}
  std::string name() const override { return k_->info.name; }
  Dim3 grid() const override { return k_->info.grid; }
  Dim3 block() const override { return k_->info.block; }
  std::uint32_t regs_per_thread() const override { return k_->info.nregs; }
  std::uint32_t shared_mem_bytes() const override { return k_->info.shmem; }
  const std::vector<DataStructure>& data() const override { return data_; }
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t cta, std::uint32_t warp) const override {
    return std::make_unique<TraceWarpStream>(k_, cta, loc(cta, warp));
  }
  void emplace_warp_stream(std::uint32_t cta, std::uint32_t warp,
                           WarpStreamSlot& slot) const override {
    const WarpLoc& l = loc(cta, warp);
    slot.emplace<TraceWarpStream>(k_, cta, l);
  }

 private:
  const WarpLoc& loc(std::uint32_t cta, std::uint32_t warp) const {
    if (cta >= num_ctas() || warp >= k_->warps_per_cta)
      throw std::out_of_range("trace kernel " + k_->info.name + ": no warp " +
                              std::to_string(warp) + " in CTA " + std::to_string(cta));
    return k_->warps[std::size_t{cta} * k_->warps_per_cta + warp];
  }

  std::shared_ptr<KernelIndex> k_;
  std::vector<DataStructure> data_;
};

std::string_view base_of(std::string_view opcode) {
  return opcode.substr(0, opcode.find('.'));
}

TraceOpcodeClass classify_opcode(std::string_view opcode);
std::uint8_t opcode_width(std::string_view opcode);

struct RegList {
  std::uint8_t n = 0;
  std::array<std::uint8_t, 16> r{};
  bool overflow = false;
  void add(std::uint8_t x) {
    for (unsigned i = 0; i < n; ++i)
      if (r[i] == x) return;
    if (n < r.size())
      r[n++] = x;
    else
      overflow = true;
  }
};

// "Rn" with n <= 255 joins `out` (RZ = R255 is dropped); other register names are ignored.
void add_register(std::string_view t, const Where& where, RegList& out) {
  if (t.size() < 2 || t[0] != 'R' || t[1] < '0' || t[1] > '9') return;
  std::uint64_t n = 0;
  if (!parse_dec(t.substr(1), n) || n > 255) fail(where, "bad register " + quote(t));
  if (n != Scoreboard::kZeroRegister) out.add(static_cast<std::uint8_t>(n));
}

// Fills the scoreboard fields. A global load or atomic wider than 4 bytes per lane writes
// consecutive registers from the one NVBit lists (LDG.E.128 R24 writes R24..R27). An instruction
// with more registers than WarpInst holds waits for all outstanding loads (conservative); a load
// whose destinations do not fit is an error (a later reader of the others could issue early).
// `op` and `opcode_w` are classify_opcode(opcode).op and opcode_width(opcode).
void set_registers(WarpInst& out, RegList dsts, const RegList& srcs, std::string_view opcode,
                   WarpOp op, std::uint8_t opcode_w, std::uint64_t width, const Where& where) {
  const bool global = (op == WarpOp::Load || op == WarpOp::Atomic) && width > 0;
  std::uint8_t w = opcode_w;
  if (w == 0) w = static_cast<std::uint8_t>(std::min<std::uint64_t>(width, 16));
  if (global && dsts.n == 1 && w > 4)
    for (unsigned i = 1; i < w / 4u && dsts.r[0] + i < Scoreboard::kZeroRegister; ++i)
      dsts.add(static_cast<std::uint8_t>(dsts.r[0] + i));
  if (global && (dsts.n > out.dst.size() || dsts.overflow))
    fail(where, std::string(opcode) + " writes " + std::to_string(dsts.n) +
                    " registers; the scoreboard tracks at most " + std::to_string(out.dst.size()) +
                    " per load");
  out.n_dst = static_cast<std::uint8_t>(std::min<unsigned>(dsts.n, out.dst.size()));
  out.n_src = static_cast<std::uint8_t>(std::min<unsigned>(srcs.n, out.src.size()));
  for (unsigned i = 0; i < out.n_dst; ++i) out.dst[i] = dsts.r[i];
  for (unsigned i = 0; i < out.n_src; ++i) out.src[i] = srcs.r[i];
  out.wait_all_loads =
      srcs.n > out.src.size() || srcs.overflow || dsts.n > out.dst.size() || dsts.overflow;
}

}  // namespace

namespace {

TraceOpcodeClass classify_opcode(std::string_view opcode) {
  // std::less<>: looked up by string_view, without building a string per instruction.
  // Hashed by string_view (keys are literals): no string is built per instruction.
  static const std::unordered_map<std::string_view, TraceOpcodeClass> table = {
      // global memory (LDL/STL: local memory, modelled as global accesses)
      {"LDG", {WarpOp::Load, 0}},
      {"LD", {WarpOp::Load, 0}},
      {"LDL", {WarpOp::Load, 0}},
      {"LDGSTS", {WarpOp::Load, 0}},
      {"STG", {WarpOp::Store, 0}},
      {"ST", {WarpOp::Store, 0}},
      {"STL", {WarpOp::Store, 0}},
      {"ATOMG", {WarpOp::Atomic, 0}},
      {"ATOM", {WarpOp::Atomic, 0}},
      {"RED", {WarpOp::Atomic, 0}},
      {"REDG", {WarpOp::Atomic, 0}},
      // shared memory (ATOMS: a shared-memory read-modify-write, modelled as a shared store)
      {"LDS", {WarpOp::SharedLoad, 0}},
      {"LDSM", {WarpOp::SharedLoad, 0}},
      {"STS", {WarpOp::SharedStore, 0}},
      {"ATOMS", {WarpOp::SharedStore, 0}},
      {"BAR", {WarpOp::Barrier, 0}},
      {"EXIT", {WarpOp::Exit, 0}},
      {"RET", {WarpOp::Exit, 0}},
      // Compute latency classes: FP32 / integer multiply 4 (kAluLatency), FP64 8, SFU 16, the
      // rest (integer, logic, moves, predicates, control) 1 = the next instruction may issue at
      // once.
      {"FADD", {WarpOp::Compute, 4}},
      {"FMUL", {WarpOp::Compute, 4}},
      {"FFMA", {WarpOp::Compute, 4}},
      {"FMNMX", {WarpOp::Compute, 4}},
      {"FSET", {WarpOp::Compute, 4}},
      {"FSETP", {WarpOp::Compute, 4}},
      {"FSEL", {WarpOp::Compute, 4}},
      {"HADD2", {WarpOp::Compute, 4}},
      {"HMUL2", {WarpOp::Compute, 4}},
      {"HFMA2", {WarpOp::Compute, 4}},
      {"IMAD", {WarpOp::Compute, 4}},
      {"IMUL", {WarpOp::Compute, 4}},
      {"DADD", {WarpOp::Compute, 8}},
      {"DMUL", {WarpOp::Compute, 8}},
      {"DFMA", {WarpOp::Compute, 8}},
      {"DSETP", {WarpOp::Compute, 8}},
      {"MUFU", {WarpOp::Compute, 16}},
  };
  auto it = table.find(base_of(opcode));
  return it == table.end() ? TraceOpcodeClass{WarpOp::Compute, 1} : it->second;
}

std::uint8_t opcode_width(std::string_view opcode) {
  std::size_t i = opcode.find('.');
  while (i != std::string_view::npos) {
    std::size_t j = opcode.find('.', i + 1);
    std::string_view tok =
        opcode.substr(i + 1, j == std::string_view::npos ? std::string_view::npos : j - i - 1);
    if (!tok.empty() && (tok[0] == 'U' || tok[0] == 'S')) tok = tok.substr(1);
    if (tok == "8") return 1;
    if (tok == "16") return 2;
    if (tok == "32") return 4;
    if (tok == "64") return 8;
    if (tok == "128") return 16;
    i = j;
  }
  return 0;
}

struct OpcodeInfo {
  TraceOpcodeClass cls;
  std::uint8_t width = 0;
};

// classify_opcode() and opcode_width() of an opcode, remembered: both depend on the opcode text
// alone, a trace uses a few dozen distinct opcodes, and every line is parsed twice. A small
// direct-mapped cache (a collision only recomputes).
OpcodeInfo opcode_info(std::string_view opcode) {
  struct Entry {
    std::string text;
    OpcodeInfo info;
    bool used = false;
  };
  thread_local std::array<Entry, 64> cache;
  std::size_t h = opcode.size() * 31;
  if (!opcode.empty())
    h += static_cast<unsigned char>(opcode.front()) * 7u +
         static_cast<unsigned char>(opcode.back()) * 3u +
         static_cast<unsigned char>(opcode[opcode.size() / 2]);
  Entry& e = cache[h & 63];
  if (e.used && e.text == opcode) return e.info;
  e.text.assign(opcode.data(), opcode.size());
  e.info = OpcodeInfo{classify_opcode(opcode), opcode_width(opcode)};
  e.used = true;
  return e.info;
}

}  // namespace

TraceOpcodeClass classify_trace_opcode(const std::string& opcode) {
  return classify_opcode(opcode);
}

std::uint8_t trace_opcode_width(const std::string& opcode) {
  return opcode_width(opcode);
}

void parse_trace_inst(const std::string& line, const TraceKernelInfo& info, bool last,
                      const std::vector<TraceMemcpy>& regions, const std::string& where,
                      WarpInst& out) {
  parse_inst(line, info, last, regions, Where(where), out);
}

namespace {

// Out of line so that parse_inst's token reader stays small enough to inline.
[[noreturn]] __attribute__((noinline, cold)) void missing(const Where& where, const char* what) {
  fail(where, std::string("truncated instruction: missing ") + what);
}

// What the text before the addresses ("[line] PC mask dst_num [dsts] opcode src_num [srcs]
// mem_width") parses to. It depends on that text alone (and on whether the kernel has line
// numbers), and a trace repeats each instruction with the same active mask in every trip of a
// loop and in every warp, so the last such text seen is kept: a line that starts with a
// byte-identical text takes the result without parsing it again.
struct StaticPart {
  std::string text;  // empty: unused
  bool lineinfo = false;
  std::uint32_t pc = 0, mask = 0;
  std::string opcode;
  TraceOpcodeClass cls;
  std::uint8_t opcode_w = 0;
  std::uint64_t width = 0;
  std::uint8_t n_dst = 0, n_src = 0;
  decltype(WarpInst::dst) dst{};
  decltype(WarpInst::src) src{};
  bool wait_all_loads = false;
  // The text has no byte check_text() rejects (the kernel index then checks only the rest of a
  // line), and the access width is one parse_inst() accepts.
  bool text_ok = false, width_ok = false;
  // 1 + lineinfo if the text is not empty and both hold (fast_line() may use it), else 0.
  std::uint8_t fast = 0;
  // `fast` if plain_line() may read the line (no operands, neither a memory access nor a shared
  // one, a text of 16 bytes or more), else 0: one test per streamed line instead of four.
  std::uint8_t plain = 0;
  // What fast_inst() does after copying head and tail: nothing (compute, barrier, an exit that
  // is not the warp's last instruction: their lanes are not cleared, WarpInst::addr), make an
  // exit of the warp's last one, or finish a global or a shared access from its lanes.
  enum Kind : std::uint8_t { kPlain, kExit, kGlobal, kShared } kind = kPlain;
  // The stride that makes a full warp's base + stride line a linear instruction (its access
  // size, for a global access), else kNoStride: fast_tail() then writes lane 0 alone.
  static constexpr std::uint64_t kNoStride = std::uint64_t{1} << 63;  // (no stride it reads)
  std::uint64_t linear_step = kNoStride;
  // The WarpInst fields before `addr` and from `n_dst` on, as finish_inst() leaves them for a
  // line that is not its warp's last (a global access's data structure and linear excepted):
  // copied as two blocks per streamed line instead of field by field.
  static constexpr std::size_t kHead = offsetof(WarpInst, addr);
  static constexpr std::size_t kTailAt = offsetof(WarpInst, n_dst);
  static constexpr std::size_t kTail = sizeof(WarpInst) - kTailAt;
  static_assert(kHead + sizeof(WarpInst::addr) == kTailAt,
                "a WarpInst field between addr and n_dst would be copied by neither block");
  unsigned char head[kHead] = {}, tail[kTail] = {};
  // The static part of the line that followed this one when last seen: fast_line() tries it
  // before hashing (a hint, checked like any memo entry).
  mutable const StaticPart* succ = nullptr;

  // True if `line` starts with `text` followed by a separator or the end of the line.
  bool matches(std::string_view line, bool with_lineinfo) const {
    return !text.empty() && lineinfo == with_lineinfo && line.size() >= text.size() &&
           std::memcmp(line.data(), text.data(), text.size()) == 0 &&
           (line.size() == text.size() || is_ws(line[text.size()]));
  }
};

// True if check_text() accepts `s`.
bool is_text(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return false;
  }
  return true;
}

#define LOCSIM_INLINE inline __attribute__((always_inline))

// Clears 32 lane addresses in 16 stores (std::fill becomes a `rep stos`, 32 steps and a set-up;
// it runs for every line with inactive lanes).
LOCSIM_INLINE void zero_lanes(Addr* a) {
#if defined(__SSE2__)
  __m128i z = _mm_setzero_si128();
  for (unsigned i = 0; i < 32; i += 2) {
    __asm__("" : "+x"(z));  // not a memset to the compiler, which would make it the `rep stos`
    _mm_storeu_si128(reinterpret_cast<__m128i*>(a + i), z);
  }
#else
  std::fill(a, a + 32, Addr{0});
#endif
}

// The operands after the static part (addresses, immediate) of a line in the usual form, read in
// one pass over its bytes. Fails for anything else (the general reader then reads the same
// operands again and reports what is wrong): it accepts a subset of what the general reader
// accepts (decimals of at most 18 digits, so no range check) and yields the same values. Only
// separators (space, tab, CR), hex digits, 'x', 'X' and signs are accepted, so an accepted tail
// has no byte check_text() rejects. kNl: the bytes are a read buffer and the line ends at a
// '\n' (running off the buffer fails); else they are the line. The helpers are inline so the
// cursor stays in a register.
template <bool kNl>
class TailReader {
 public:
  TailReader(const char* p, const char* e) : p_(p), e_(e) {}

  // The end of the line (its '\n' for kNl, else e) or nullptr. Lane addresses are written only
  // if `addr` is not null.
  const char* read(std::uint32_t m, std::uint64_t width, std::uint32_t version, Addr* addr) {
    const bool fill = addr != nullptr;
    if (width > 0) {
      if (m == 0 || sep() != kToken || e_ - p_ < 2 || p_[0] < '0' || p_[0] > '2' || !is_ws(p_[1]))
        return nullptr;
      const char mode = p_[0];
      ++p_;
      if (fill && m != 0xffffffffu) zero_lanes(addr);
      if (mode == '0') {
        for (std::uint32_t b = m; b; b &= b - 1) {
          std::uint64_t a = 0;
          if (sep() != kToken || !hex(a)) return nullptr;
          if (fill) addr[static_cast<unsigned>(__builtin_ctz(b))] = a;
        }
      } else {
        std::uint64_t cur = 0;
        if (sep() != kToken || !hex(cur)) return nullptr;
        if (mode == '1') {
          std::int64_t stride = 0;
          if (sep() != kToken || !sdec(stride)) return nullptr;
          const std::uint64_t step = static_cast<std::uint64_t>(stride);
          if (fill && m == 0xffffffffu) {
            for (unsigned l = 0; l < 32; ++l) {  // vectorised, as in parse_tail()
              addr[l] = cur;
              cur += step;
            }
          } else if (fill) {
            for (std::uint32_t b = m; b; b &= b - 1) {
              addr[static_cast<unsigned>(__builtin_ctz(b))] = cur;
              cur += step;
            }
          }
        } else {
          for (std::uint32_t b = m;;) {
            if (fill) addr[static_cast<unsigned>(__builtin_ctz(b))] = cur;
            b &= b - 1;
            if (!b) break;
            std::int64_t delta = 0;
            if (sep() != kToken || !sdec(delta)) return nullptr;
            cur += static_cast<std::uint64_t>(delta);
          }
        }
      }
    }
    Next n = sep();
    if (n == kToken) {
      if (version < 4) return nullptr;
      // An immediate: a signed decimal or a hex number.
      const char* at = p_;
      std::int64_t imm = 0;
      std::uint64_t himm = 0;
      if (!sdec(imm)) {
        p_ = at;
        if (!hex(himm)) return nullptr;
      }
      n = sep();
    }
    return n == kEnd ? p_ : nullptr;
  }

 private:
  enum Next { kToken, kEnd, kFail };
  // Ends a token: a separator, or the line's '\n'.
  static LOCSIM_INLINE bool term(char c) { return is_ws(c) || (kNl && c == '\n'); }
  // Skips separators: then a token, the end of the line or (kNl) the end of the buffer.
  LOCSIM_INLINE Next sep() {
    if (e_ - p_ >= 2 && p_[0] == ' ' && static_cast<unsigned char>(p_[1]) > ' ') {
      ++p_;  // the usual separator: one space, then a token
      return kToken;
    }
    while (p_ < e_ && is_ws(*p_)) ++p_;
    if (p_ == e_) return kNl ? kFail : kEnd;
    return kNl && *p_ == '\n' ? kEnd : kToken;
  }
  LOCSIM_INLINE bool token_end() const { return p_ == e_ ? !kNl : term(*p_); }
  // 1 to 16 hex digits, "0x" or "0X" first if more follows (parse_hex()).
  LOCSIM_INLINE bool hex(std::uint64_t& v) {
    if (e_ - p_ > 2 && p_[0] == '0' && (p_[1] == 'x' || p_[1] == 'X') && !term(p_[2])) p_ += 2;
#if defined(__SSE2__)
    if (e_ - p_ >= 16) {
      const unsigned n = hex16(p_, v);
      p_ += n;
      return n > 0 && (n < 16 ? term(*p_) : token_end());
    }
#endif
    const char* start = p_;
    std::uint64_t x = 0, w = 0;
    while (e_ - p_ >= 8 && hex8(p_, w)) {
      x = (x << 32) | w;
      p_ += 8;
    }
    for (unsigned d; p_ < e_ && (d = kHexDigits.v[static_cast<unsigned char>(*p_)]) < 16; ++p_)
      x = x << 4 | d;
    const std::ptrdiff_t n = p_ - start;
    if (n == 0 || n > 16 || !token_end()) return false;
    v = x;
    return true;
  }
  // An optional sign and 1 to 18 decimal digits (parse_sdec() without its range check).
  LOCSIM_INLINE bool sdec(std::int64_t& v) {
    bool neg = false;
    if (*p_ == '-' || *p_ == '+') {
      neg = *p_ == '-';
      ++p_;
    }
    const char* start = p_;
    std::uint64_t u = 0;
    for (unsigned d; p_ < e_ && (d = static_cast<unsigned char>(*p_) - '0') < 10; ++p_)
      u = u * 10 + d;
    const std::ptrdiff_t n = p_ - start;
    if (n == 0 || n > 18 || !token_end()) return false;
    v = neg ? static_cast<std::int64_t>(~u + 1) : static_cast<std::int64_t>(u);
    return true;
  }

  const char* p_;
  const char* e_;
};

StaticPart& static_part(std::string_view line) {
  // Direct-mapped on a hash of the line's first 16 bytes (the PC and the active mask); a
  // collision only parses again.
  thread_local std::array<StaticPart, 2048> memo;
  return memo[line_slot(line, 2047)];
}

const StaticPart* warp_start() {
  // Per thread, as the memo its successor (fast_line() sets it) points into; its empty text
  // and `fast` 0 match no line.
  thread_local StaticPart start;
  return &start;
}

// The operands after the static part, token by token, with the error messages (TailReader reads
// the usual line).
__attribute__((noinline)) void parse_tail(TokenCursor& tok, const Where& where, std::uint32_t m,
                                          std::uint64_t width, std::uint32_t version, bool fill,
                                          std::array<Addr, 32>& addr) {
  auto need = [&](const char* what) -> std::string_view {
    std::string_view t;
    if (!tok.next(t)) missing(where, what);
    return t;
  };
  std::string_view t;
  if (width > 0) {
    if (fill && m != 0xffffffffu) addr.fill(0);  // inactive lanes (all lanes are written else)
    t = need("address compression mode");
    std::uint64_t mode = 0;
    if (!parse_dec(t, mode) || mode > 2)
      fail(where, "unknown address compression mode " + quote(t) +
                      " (0 = list, 1 = base+stride, 2 = base+deltas)");
    if (mode == 0) {
      for (unsigned l = 0; l < 32; ++l) {
        if (!((m >> l) & 1u)) continue;
        std::string_view a = need("address (mode 0 lists one per active lane)");
        if (!parse_hex(a, addr[l])) fail(where, "bad hex address " + quote(a));
      }
    } else if (m != 0) {
      std::string_view a = need("base address");
      std::uint64_t base = 0;
      if (!parse_hex(a, base)) fail(where, "bad hex address " + quote(a));
      if (mode == 1) {
        std::string_view s = need("stride");
        std::int64_t stride = 0;
        if (!parse_sdec(s, stride)) fail(where, "bad stride " + quote(s));
        std::uint64_t cur = base;
        if (fill && m == 0xffffffffu) {
          // An induction the compiler vectorises (two lanes per add), not a multiply per lane.
          const std::uint64_t step = static_cast<std::uint64_t>(stride);
          for (unsigned l = 0; l < 32; ++l) {
            addr[l] = cur;
            cur += step;
          }
        } else {
          for (unsigned l = 0; l < 32 && fill; ++l)
            if ((m >> l) & 1u) {
              addr[l] = cur;
              cur += static_cast<std::uint64_t>(stride);
            }
        }
      } else {
        bool first = true;
        std::uint64_t cur = base;
        for (unsigned l = 0; l < 32; ++l) {
          if (!((m >> l) & 1u)) continue;
          if (!first) {
            std::string_view d = need("delta (mode 2 has one per active lane after the first)");
            std::int64_t delta = 0;
            if (!parse_sdec(d, delta)) fail(where, "bad delta " + quote(d));
            cur += static_cast<std::uint64_t>(delta);
          }
          first = false;
          addr[l] = cur;
        }
      }
    }
  }
  // An optional immediate (tracer versions 4 and 5; version 3 lines end with the addresses).
  std::string_view extra;
  bool more = tok.next(extra);
  if (more && version >= 4) {
    std::int64_t imm = 0;
    std::uint64_t himm = 0;
    if (!parse_sdec(extra, imm) && !parse_hex(extra, himm))
      fail(where, "unexpected token " + quote(extra) + " after the operands");
    more = tok.next(extra);
  }
  if (more) fail(where, "unexpected token " + quote(extra) + " at the end of the line");
}

// The fields of `out` its static part gives.
LOCSIM_INLINE void set_static(const StaticPart& sp, WarpInst& out) {
  out.pc = sp.pc;
  out.active_mask = sp.mask;
  out.n_dst = sp.n_dst;
  out.n_src = sp.n_src;
  out.dst = sp.dst;
  out.src = sp.src;
  out.wait_all_loads = sp.wait_all_loads;
}

// The rest of `out` once its static part and lane addresses are set: operation, latency, access
// size, data structure, shared-memory offsets, linear. step: the stride of a full warp's base +
// stride line (0 if not known), which makes a global access of that size linear.
// Generic shared-memory addresses of the active lanes become offsets in the CTA's window.
LOCSIM_INLINE void rebase_shared(WarpInst& out, std::uint32_t m, Addr shmem_base) {
  if (shmem_base == 0) return;
  for (unsigned l = 0; l < 32; ++l)
    if (((m >> l) & 1u) && out.addr[l] >= shmem_base) out.addr[l] -= shmem_base;
}

// A global access's data structure: the copied region holding its first active lane's address.
LOCSIM_INLINE void tag_data_structure(WarpInst& out, std::uint32_t m,
                                      const std::vector<TraceMemcpy>& regions) {
  if (m == 0) return;
  const Addr a = out.addr[__builtin_ctz(m)];
  for (std::size_t r = 0; r < regions.size(); ++r)
    if (a >= regions[r].base && a - regions[r].base < regions[r].bytes) {
      out.data_structure = static_cast<std::uint16_t>(r);
      return;
    }
}

LOCSIM_INLINE void finish_inst(const StaticPart& sp, bool last, const TraceKernelInfo& info,
                               const std::vector<TraceMemcpy>& regions, const Where& where,
                               WarpInst& out, bool fill, std::uint64_t step = 0) {
  const std::uint32_t m = out.active_mask;
  const std::uint64_t width = sp.width;
  TraceOpcodeClass cls = sp.cls;
  out.count = 1;
  out.latency = 0;
  out.size = 4;
  out.linear = false;
  out.data_structure = 0xffff;
  const bool is_mem = cls.op == WarpOp::Load || cls.op == WarpOp::Store ||
                      cls.op == WarpOp::Atomic || cls.op == WarpOp::SharedLoad ||
                      cls.op == WarpOp::SharedStore;
  if (cls.op == WarpOp::Exit && !last) cls = {WarpOp::Compute, 1};
  if (is_mem && width == 0) cls = {WarpOp::Compute, 1};  // no addresses recorded
  out.op = cls.op;
  // A non-memory instruction's addr is left as it is (WarpInst: unspecified).
  if (cls.op == WarpOp::Compute) {
    out.latency = cls.latency;
    return;
  }
  if (!is_mem) return;
  std::uint8_t w = sp.opcode_w;
  if (w == 0) w = static_cast<std::uint8_t>(width);
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
    fail(where, "unsupported access width " + std::to_string(width) + " bytes for " + sp.opcode +
                    " (1, 2, 4, 8 or 16)");
  out.size = w;
  if (!fill) return;
  if (cls.op == WarpOp::SharedLoad || cls.op == WarpOp::SharedStore) {
    rebase_shared(out, m, info.shmem_base);
    return;
  }
  tag_data_structure(out, m, regions);
  out.linear = step == w;  // a global access (shared offsets may have moved): lanes as read
}

// a[0..n) == b[0..n) without a call (the static part of every instruction line is compared).
LOCSIM_INLINE bool same_bytes(const char* a, const char* b, std::size_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    auto differ = [&](std::size_t i) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
      const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
      return _mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) != 0xffff;
    };
    // The usual static parts: two or three compares, one mask, no loop.
    auto eq = [&](std::size_t i) __attribute__((always_inline)) {
      return _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)),
                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    };
    if (n <= 32) return _mm_movemask_epi8(_mm_and_si128(eq(0), eq(n - 16))) == 0xffff;
    if (n <= 48)
      return _mm_movemask_epi8(_mm_and_si128(_mm_and_si128(eq(0), eq(16)), eq(n - 16))) == 0xffff;
    std::size_t i = 0;
    for (; i + 16 < n; i += 16)
      if (differ(i)) return false;
    return !differ(n - 16);  // the last 16 bytes (overlapping the ones compared)
  }
#endif
  return std::memcmp(a, b, n) == 0;
}

// fast_tail() past its short path, in a function of its own: the short path then needs no
// saved registers.
__attribute__((noinline)) const char* general_tail(const char* p, const char* e,
                                                   const StaticPart& s, const TraceKernelInfo& info,
                                                   Addr* addr) {
  if (!is_ws(*p) && *p != '\n') return nullptr;  // the static part's last token goes on
  return TailReader<true>(p, e).read(s.mask, s.width, info.version, addr);
}

// The instruction line that starts at `p` in a read buffer ending at `e`, read without finding
// its end first: if its static part is remembered (text-clean, with an accepted width) and
// TailReader reads the rest, the position of its '\n' (the static part in `sp`, the lane
// addresses in `addr` if not null); else nullptr (read the line and parse it in full).
// The operands after a matched static part (p: the byte after it): inline in the two
// out-of-line loops that use it (the index's check, a stream's memory lines), where `addr` and
// `step_out` are then known to be null or not.
// fast_tail()'s short path alone (no call: the stream's usual memory line needs no frame), or
// nullptr.
LOCSIM_INLINE const char* short_tail(const char* p, const char* e, const StaticPart& s, Addr* addr,
                                     std::uint64_t* step_out) {
#if defined(__SSE2__)
  // A full warp's base + stride line with a 16-digit base, " 1 0x<base> <stride>" and its end,
  // is the usual memory line (every SAXPY load and store): read it without the general reader
  // (what TailReader<true> makes of it).
  if (s.width > 0 && s.mask == 0xffffffffu && e - p >= 24 && std::memcmp(p, " 1 0x", 5) == 0) {
    std::uint64_t cur = 0;
    if (hex16(p + 5, cur) == 16 && p[21] == ' ') {
      const char* q = p + 22;
      const bool neg = *q == '-';
      q += neg;
      const char* digits = q;
      std::uint64_t u = 0;
      for (unsigned d; q < e && (d = static_cast<unsigned char>(*q) - '0') < 10; ++q)
        u = u * 10 + d;
      if (q > digits && q - digits <= 18 && q < e && *q == '\n') {
        if (addr) {
          const std::uint64_t step = neg ? ~u + 1 : u;
          if (step_out) *step_out = step;
          if (step_out && step == s.linear_step) {  // linear: its consumers fill the lanes
            addr[0] = cur;
            return q;
          }
          // Two lanes per store, unrolled (the loop the compiler made of it cost six
          // instructions per pair).
          __m128i v =
              _mm_set_epi64x(static_cast<long long>(cur + step), static_cast<long long>(cur));
          const __m128i d = _mm_set1_epi64x(static_cast<long long>(2 * step));
#pragma GCC unroll 16
          for (unsigned l = 0; l < 32; l += 2) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(addr + l), v);
            v = _mm_add_epi64(v, d);
          }
        }
        return q;
      }
    }
  }
#endif
  return nullptr;
}

LOCSIM_INLINE const char* fast_tail(const char* p, const char* e, const StaticPart& s,
                                    const TraceKernelInfo& info, Addr* addr,
                                    std::uint64_t* step_out) {
  if (const char* q = short_tail(p, e, s, addr, step_out)) return q;
  return general_tail(p, e, s, info, addr);
}

// Inline: every instruction line of a trace starts here, twice.
LOCSIM_INLINE const char* fast_line(const char* p, const char* e, const TraceKernelInfo& info,
                                    unsigned fast, Addr* addr, const StaticPart*& sp,
                                    std::uint64_t* step) {
  if (e - p < 16) return nullptr;
  auto usable = [&](const StaticPart& c) __attribute__((always_inline)) {
    const std::size_t n = c.text.size();
    return c.fast == fast && static_cast<std::size_t>(e - p) > n && same_bytes(p, c.text.data(), n);
  };
  // The static part that followed the previous line's last time (a warp's lines and the loop
  // trips in it repeat the same sequence), else the memo's slot for this line.
  const StaticPart* s = sp ? sp->succ : nullptr;
  if (!s || !usable(*s)) {
    const StaticPart& h = static_part(std::string_view(p, 16));
    if (!usable(h)) return nullptr;
    if (sp) sp->succ = &h;
    s = &h;
  }
  sp = s;
  const std::size_t n = s->text.size();
  if (p[n] == '\n' && s->width == 0) return p + n;  // no operands after the static part
  return fast_tail(p + n, e, *s, info, addr, step);
}

const char* fast_inst(const char* p, const char* e, const TraceKernelInfo& info, bool last,
                      const std::vector<TraceMemcpy>& regions, WarpInst& out,
                      const StaticPart*& prev) {
  static_assert(std::is_trivially_copyable<WarpInst>::value, "WarpInst is copied as bytes");
  std::uint64_t step = 0;  // stays 0 (never an access size) off the short base + stride path
  const char* nl = fast_line(p, e, info, 1u + info.lineinfo, out.addr.data(), prev, &step);
  if (!nl) return nullptr;
  const StaticPart* sp = prev;
  // What finish_inst() makes of the line, from the fields it keeps for the static part.
  auto* bytes = reinterpret_cast<unsigned char*>(&out);
  std::memcpy(bytes, sp->head, StaticPart::kHead);
  std::memcpy(bytes + StaticPart::kTailAt, sp->tail, StaticPart::kTail);
  switch (sp->kind) {
    case StaticPart::kExit:
      if (last) {
        out.op = WarpOp::Exit;
        out.latency = 0;
      }
      break;
    case StaticPart::kPlain:  // (addr of a non-memory instruction is unspecified: not cleared)
      break;
    case StaticPart::kShared:
      rebase_shared(out, out.active_mask, info.shmem_base);
      break;
    case StaticPart::kGlobal: {
      tag_data_structure(out, out.active_mask, regions);
      out.linear = step == out.size;
      break;
    }
  }
  return nl;
}

LOCSIM_INLINE const char* plain_line(const char* p, const char* e, unsigned fast, bool last,
                                     WarpInst& out, const StaticPart*& prev) {
  const StaticPart* s = prev->succ;  // (a stream's hint is never null: warp_start())
  if (!s || s->plain != fast) return nullptr;
  // (n >= 16: same_bytes() then calls nothing, so that next() saves no registers)
  const std::size_t n = s->text.size();
  if (n < 16) __builtin_unreachable();  // (StaticPart::plain says so)
  if (static_cast<std::size_t>(e - p) <= n || !same_bytes(p, s->text.data(), n) || p[n] != '\n')
    return nullptr;
  auto* bytes = reinterpret_cast<unsigned char*>(&out);
  std::memcpy(bytes, s->head, StaticPart::kHead);
  std::memcpy(bytes + StaticPart::kTailAt, s->tail, StaticPart::kTail);
  if (s->kind == StaticPart::kExit && last) {
    out.op = WarpOp::Exit;
    out.latency = 0;
  }
  prev = s;
  return p + n;
}

LOCSIM_INLINE const char* quick_line(const char* p, const char* e, unsigned fast,
                                     const StaticPart*& sp) {
  const StaticPart* s = sp->succ;
  if (!s || s->fast != fast) return nullptr;
  const std::size_t n = s->text.size();
  if (n < 16 || static_cast<std::size_t>(e - p) <= n || !same_bytes(p, s->text.data(), n))
    return nullptr;
  const char* nl =
      s->width == 0 ? (p[n] == '\n' ? p + n : nullptr) : short_tail(p + n, e, *s, nullptr, nullptr);
  if (nl) sp = s;
  return nl;
}

LOCSIM_INLINE const char* global_line(const char* p, const char* e, unsigned fast,
                                      const std::vector<TraceMemcpy>& regions, WarpInst& out,
                                      const StaticPart*& prev) {
  const StaticPart* s = prev->succ;  // (a stream's hint is never null: warp_start())
  if (!s || s->kind != StaticPart::kGlobal || s->fast != fast) return nullptr;
  const std::size_t n = s->text.size();
  if (n < 16 || static_cast<std::size_t>(e - p) <= n || !same_bytes(p, s->text.data(), n))
    return nullptr;
  std::uint64_t step = 0;
  const char* nl = short_tail(p + n, e, *s, out.addr.data(), &step);
  if (!nl) return nullptr;
  // As fast_inst() finishes a global access.
  auto* bytes = reinterpret_cast<unsigned char*>(&out);
  std::memcpy(bytes, s->head, StaticPart::kHead);
  std::memcpy(bytes + StaticPart::kTailAt, s->tail, StaticPart::kTail);
  tag_data_structure(out, out.active_mask, regions);
  out.linear = step == out.size;
  prev = s;
  return nl;
}

bool check_inst_fast(std::string_view line, const TraceKernelInfo& info) {
  const StaticPart& sp = static_part(line);
  if (!sp.text_ok || !sp.width_ok || !sp.matches(line, info.lineinfo)) return false;
  return TailReader<false>(line.data() + sp.text.size(), line.data() + line.size())
             .read(sp.mask, sp.width, info.version, nullptr) != nullptr;
}

// `fill` false: the line is only checked (the kernel index); the lane addresses, data structure
// and shared-memory offsets of `out` are then left unset.
void parse_inst(std::string_view line, const TraceKernelInfo& info, bool last,
                const std::vector<TraceMemcpy>& regions, const Where& where, WarpInst& out,
                bool fill) {
  TokenCursor tok(line);
  auto need = [&](const char* what) -> std::string_view {
    std::string_view t;
    if (!tok.next(t)) missing(where, what);
    return t;
  };
  std::uint64_t v = 0;
  std::string_view t;
  StaticPart& sp = static_part(line);
  if (sp.matches(line, info.lineinfo)) {
    tok.skip_to(sp.text.size());
    set_static(sp, out);
  } else {
    if (info.lineinfo) {
      t = need("line number");
      if (!parse_dec(t, v)) fail(where, "bad line number " + quote(t));
    }
    t = need("PC");
    std::uint64_t pc = 0;
    if (!parse_hex(t, pc)) fail(where, "bad hex PC " + quote(t));
    t = need("active mask");
    std::uint64_t mask = 0;
    if (!parse_hex(t, mask) || mask > 0xffffffffull) fail(where, "bad hex active mask " + quote(t));
    out.pc = static_cast<std::uint32_t>(pc);
    out.active_mask = static_cast<std::uint32_t>(mask);
    // Registers: general registers R0..R254 feed the scoreboard; RZ (R255) and other register
    // files (uniform URn, predicates) are not tracked.
    RegList dsts, srcs;
    t = need("destination count");
    if (!parse_dec(t, v) || v > 255) fail(where, "bad destination register count " + quote(t));
    for (std::uint64_t r = 0; r < v; ++r) add_register(need("destination register"), where, dsts);
    const std::string_view opcode = need("opcode");
    t = need("source count");
    if (!parse_dec(t, v) || v > 255) fail(where, "bad source register count " + quote(t));
    for (std::uint64_t r = 0; r < v; ++r) add_register(need("source register"), where, srcs);
    t = need("memory width");
    std::uint64_t width = 0;
    if (!parse_dec(t, width) || width > 256) fail(where, "bad memory width " + quote(t));
    const OpcodeInfo oi = opcode_info(opcode);
    set_registers(out, dsts, srcs, opcode, oi.cls.op, oi.width, width, where);
    sp.text.assign(line.substr(0, tok.offset()));
    sp.lineinfo = info.lineinfo;
    sp.pc = out.pc;
    sp.mask = out.active_mask;
    sp.opcode.assign(opcode);
    sp.cls = oi.cls;
    sp.opcode_w = oi.width;
    sp.width = width;
    sp.n_dst = out.n_dst;
    sp.n_src = out.n_src;
    sp.dst = out.dst;
    sp.src = out.src;
    sp.wait_all_loads = out.wait_all_loads;
    sp.text_ok = is_text(sp.text);
    const WarpOp op = oi.cls.op;
    const bool mem = op == WarpOp::Load || op == WarpOp::Store || op == WarpOp::Atomic ||
                     op == WarpOp::SharedLoad || op == WarpOp::SharedStore;
    const unsigned w = oi.width ? oi.width : static_cast<std::uint8_t>(width);
    sp.width_ok = !mem || width == 0 || w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
    sp.fast = sp.text_ok && sp.width_ok && !sp.text.empty() ? 1 + sp.lineinfo : 0;
    sp.plain = 0;
    if (sp.fast) {  // (finish_inst() accepts the width)
      WarpInst proto;
      set_static(sp, proto);
      finish_inst(sp, false, info, regions, where, proto, false);
      sp.kind =
          op == WarpOp::Exit                                                  ? StaticPart::kExit
          : proto.op == WarpOp::SharedLoad || proto.op == WarpOp::SharedStore ? StaticPart::kShared
          : proto.op == WarpOp::Load || proto.op == WarpOp::Store || proto.op == WarpOp::Atomic
              ? StaticPart::kGlobal
              : StaticPart::kPlain;
      sp.linear_step = sp.kind == StaticPart::kGlobal ? proto.size : StaticPart::kNoStride;
      if (sp.width == 0 && (sp.kind == StaticPart::kPlain || sp.kind == StaticPart::kExit) &&
          sp.text.size() >= 16)
        sp.plain = sp.fast;
      std::memcpy(sp.head, &proto, StaticPart::kHead);
      std::memcpy(sp.tail, reinterpret_cast<const unsigned char*>(&proto) + StaticPart::kTailAt,
                  StaticPart::kTail);
    }
  }
  if (!TailReader<false>(line.data() + tok.offset(), line.data() + line.size())
           .read(out.active_mask, sp.width, info.version, fill ? out.addr.data() : nullptr))
    parse_tail(tok, where, out.active_mask, sp.width, info.version, fill, out.addr);
  finish_inst(sp, last, info, regions, where, out, fill);
}

}  // namespace

std::unique_ptr<Kernel> open_accelsim_kernel(const std::string& path,
                                             std::vector<DataStructure> data) {
  auto k = std::make_shared<KernelIndex>();
  k->path = path;
  k->xz = ends_with(path, ".xz");
  for (const auto& d : data) k->regions.push_back({d.base, d.bytes});
  index_kernel(*k);
  return std::make_unique<TraceKernel>(std::move(k), std::move(data));
}

std::unique_ptr<Workload> load_accelsim_trace(const std::string& kernelslist_path) {
  LineReader rd(open_source(kernelslist_path), 1 << 16, 0, kernelslist_path);
  std::string dir;
  auto slash = kernelslist_path.rfind('/');
  if (slash != std::string::npos) dir = kernelslist_path.substr(0, slash + 1);
  std::vector<DataStructure> data;
  std::vector<std::pair<std::string, std::uint64_t>> files;  // kernel file, line
  std::string_view line;
  std::uint64_t ln = 0;
  while (rd.next(line)) {
    ++ln;
    check_text(line, kernelslist_path, ln);
    std::string_view t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const std::string where = at(kernelslist_path, ln);
    if (t.substr(0, 11) == "MemcpyHtoD,") {
      std::string_view rest = t.substr(11);
      auto comma = rest.find(',');
      std::uint64_t base = 0, bytes = 0;
      if (comma == std::string_view::npos || !parse_hex(trim(rest.substr(0, comma)), base) ||
          !parse_dec(trim(rest.substr(comma + 1)), bytes))
        fail(where, "expected 'MemcpyHtoD,0xADDRESS,BYTES', got " + quote(t));
      DataStructure d;
      d.name = "memcpy" + std::to_string(data.size());
      d.base = base;
      d.bytes = bytes;
      data.push_back(std::move(d));
      continue;
    }
    if (t.substr(0, 10) == "MemcpyDtoH" || t.substr(0, 10) == "MemcpyDtoD") continue;
    std::string name(t);
    if (name.find(',') != std::string::npos || name.find(' ') != std::string::npos)
      fail(where, "expected a kernel trace file name or 'MemcpyHtoD,...', got " + quote(t));
    files.emplace_back(name, ln);
  }
  if (files.empty()) {
    if (ln == 0) fail(kernelslist_path, "empty file: no kernel trace files listed");
    fail(at(kernelslist_path, ln), "no kernel trace files listed");
  }
  std::vector<std::unique_ptr<Kernel>> kernels;
  for (const auto& f : files) {
    std::string p = (!f.first.empty() && f.first[0] == '/') ? f.first : dir + f.first;
    if (::access(p.c_str(), R_OK) != 0) {
      if (::access((p + ".xz").c_str(), R_OK) == 0)
        p += ".xz";
      else
        fail(at(kernelslist_path, f.second), "cannot open kernel trace '" + p + "'");
    }
    kernels.push_back(open_accelsim_kernel(p, data));
  }
  return std::make_unique<KernelListWorkload>(
      "trace",
      "Accel-Sim trace " + kernelslist_path + " (" + std::to_string(kernels.size()) + " kernels)",
      std::move(kernels));
}

}  // namespace locsim
