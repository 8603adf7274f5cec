#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "model/bounded_queue.h"

using namespace locsim;

TEST_CASE("BoundedQueue: push to full returns false and leaves the queue unchanged",
          "[bounded_queue]") {
  BoundedQueue<int> q(3);
  CHECK(q.capacity() == 3);
  CHECK(q.empty());
  CHECK_FALSE(q.full());
  CHECK(q.push(1));
  CHECK(q.push(2));
  CHECK_FALSE(q.full());
  CHECK(q.push(3));
  CHECK(q.full());
  CHECK(q.size() == 3);
  CHECK_FALSE(q.push(4));
  CHECK(q.size() == 3);
  CHECK(q.front() == 1);
  CHECK(std::vector<int>(q.begin(), q.end()) == std::vector<int>{1, 2, 3});

  // FIFO order; space frees one element at a time.
  CHECK(q.pop() == 1);
  CHECK_FALSE(q.full());
  CHECK(q.push(5));
  CHECK_FALSE(q.push(6));
  CHECK(q.pop() == 2);
  CHECK(q.pop() == 3);
  CHECK(q.front() == 5);
  CHECK(q.pop() == 5);
  CHECK(q.empty());
  CHECK(q.size() == 0);
}

TEST_CASE("BoundedQueue: capacity 0 accepts nothing, capacity 1", "[bounded_queue]") {
  BoundedQueue<int> z(0);
  CHECK(z.full());
  CHECK(z.empty());
  CHECK_FALSE(z.push(1));
  CHECK(z.empty());

  BoundedQueue<int> one(1);
  CHECK(one.push(7));
  CHECK_FALSE(one.push(8));
  one.front() = 9;  // front() is a mutable reference
  CHECK(one.pop() == 9);
  CHECK(one.push(8));
}

TEST_CASE("BoundedQueue: move-only elements", "[bounded_queue]") {
  BoundedQueue<std::unique_ptr<int>> q(2);
  CHECK(q.push(std::make_unique<int>(1)));
  CHECK(q.push(std::make_unique<int>(2)));
  CHECK_FALSE(q.push(std::make_unique<int>(3)));
  CHECK(*q.pop() == 1);
  CHECK(*q.pop() == 2);
}
