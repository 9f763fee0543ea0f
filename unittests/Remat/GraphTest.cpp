//===- GraphTest.cpp - remat graphs, the simulator, store-all and DTR -----===//

#include "tad/Remat/Graph.h"

#include "gtest/gtest.h"

#include <random>

using namespace tad::remat;

namespace {

Graph chain(int n, int64_t bytes = 10, double cost = 1) {
  Graph g;
  for (int i = 0; i < n; ++i)
    g.nodes.push_back({"v" + std::to_string(i), cost, bytes, {}, {}});
  for (int i = 0; i + 1 < n; ++i)
    g.addEdge(i, i + 1);
  return g;
}

/// A random DAG in topological order, each node reading up to three earlier
/// ones.
Graph randomGraph(int n, std::mt19937 &rng) {
  Graph g;
  std::uniform_int_distribution<int64_t> bytes(1, 100);
  std::uniform_real_distribution<double> cost(0.5, 10);
  for (int i = 0; i < n; ++i) {
    g.nodes.push_back({"v" + std::to_string(i), cost(rng), bytes(rng), {}, {}});
    if (i == 0)
      continue;
    std::uniform_int_distribution<int> pick(0, i - 1);
    int fanIn = 1 + int(rng() % 3);
    for (int k = 0; k < fanIn; ++k) {
      int input = pick(rng);
      if (std::find(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end(),
                    input) == g.nodes[i].inputs.end())
        g.addEdge(input, i);
    }
  }
  return g;
}

TEST(GraphTest, ParsesNodeLinkJson) {
  Graph g;
  std::string error;
  ASSERT_TRUE(parseGraphJson(R"({"directed": true, "nodes": [
      {"id": 0, "cost_cpu": 1.5, "cost_ram": 8},
      {"id": "b", "cost_cpu": 2, "cost_ram": 16}],
      "links": [{"source": 0, "target": "b"}]})",
                             g, error))
      << error;
  ASSERT_EQ(g.size(), 2);
  EXPECT_EQ(g.nodes[1].name, "b");
  EXPECT_EQ(g.nodes[1].inputs, std::vector<int>{0});
  EXPECT_EQ(g.getComputeFootprint(1), 24);
}

TEST(GraphTest, RejectsMalformedGraphs) {
  struct {
    const char *json, *message;
  } cases[] = {
      {"{", "invalid JSON"},
      {R"({"nodes": []})", "expected an object with the arrays"},
      {R"({"nodes": [{"id": 0, "cost_cpu": 1}], "links": []})",
       "node 0: expected \"id\", \"cost_cpu\" and \"cost_ram\""},
      {R"({"nodes": [{"id": 0, "cost_cpu": -1, "cost_ram": 1}], "links": []})",
       "costs and sizes must be >= 0"},
      {R"({"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1},
                     {"id": 0, "cost_cpu": 1, "cost_ram": 1}], "links": []})",
       "appears twice"},
      {R"({"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1},
                     {"id": 1, "cost_cpu": 1, "cost_ram": 1}],
           "links": [{"source": 1, "target": 0}]})",
       "goes backwards"},
      {R"({"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1}],
           "links": [{"source": 0, "target": 7}]})",
       "unknown node \"7\""},
      {R"({"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 2.5}], "links": []})",
       "cost_ram must be a whole number of bytes"},
      {R"({"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1e30}], "links": []})",
       "cost_ram must be a whole number of bytes up to 2^53"},
  };
  for (auto c : cases) {
    Graph g;
    std::string error;
    EXPECT_FALSE(parseGraphJson(c.json, g, error)) << c.json;
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
}

// 600 nodes of 2^53 bytes each would overflow the simulator's int64 sums.
TEST(GraphTest, RejectsSizesThatOverflow) {
  std::string json = R"({"links": [], "nodes": [)";
  for (int i = 0; i < 600; ++i)
    json += (i ? "," : "") + std::string(R"({"id": )") + std::to_string(i) +
            R"(, "cost_cpu": 1, "cost_ram": 9007199254740992})";
  json += "]}";
  Graph g;
  std::string error;
  EXPECT_FALSE(parseGraphJson(json, g, error));
  EXPECT_NE(error.find("add up to more than 2^62 bytes"), std::string::npos)
      << error;
}

TEST(GraphTest, StoreAllOnAChain) {
  Graph g = chain(5);
  ScheduleStats s = simulate(g, storeAllSchedule(g));
  ASSERT_TRUE(s.valid) << s.error;
  EXPECT_EQ(s.peak, 20); // a node and its input
  EXPECT_EQ(s.cost, 5);
  EXPECT_EQ(s.computes, 5);
}

TEST(GraphTest, SimulatorRejectsInvalidSchedules) {
  Graph g = chain(3);
  EXPECT_FALSE(simulate(g, {{Event::compute, 1}}).valid); // input missing
  EXPECT_FALSE(simulate(g, {{Event::free, 0}}).valid);    // not resident
  EXPECT_FALSE(simulate(g, {{Event::compute, 0}, {Event::compute, 0}}).valid);
  ScheduleStats s = simulate(g, {{Event::compute, 0}, {Event::compute, 1}});
  EXPECT_FALSE(s.valid);
  EXPECT_NE(s.error.find("v2 is never computed"), std::string::npos);
}

// DTR stays within its budget, and at the store-all peak recomputes nothing.
TEST(GraphTest, DtrIsValidWithinBudget) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 50; ++trial) {
    Graph g = randomGraph(60, rng);
    ScheduleStats all = simulate(g, storeAllSchedule(g));
    ASSERT_TRUE(all.valid) << all.error;
    std::vector<Event> schedule;
    ASSERT_TRUE(dtrSchedule(g, all.peak, schedule));
    ScheduleStats s = simulate(g, schedule);
    ASSERT_TRUE(s.valid) << s.error;
    EXPECT_LE(s.peak, all.peak);
    EXPECT_DOUBLE_EQ(s.cost, all.cost);
    for (double fraction : {0.9, 0.75, 0.6}) {
      int64_t budget = int64_t(double(all.peak) * fraction);
      if (!dtrSchedule(g, budget, schedule))
        continue; // the greedy may give up; the optimal solver must not
      s = simulate(g, schedule);
      ASSERT_TRUE(s.valid) << s.error;
      EXPECT_LE(s.peak, budget);
      EXPECT_GE(s.cost, all.cost);
    }
  }
}

TEST(GraphTest, DtrFailsBelowAComputeFootprint) {
  Graph g = chain(4, 10);
  std::vector<Event> schedule;
  EXPECT_FALSE(dtrSchedule(g, 19, schedule)); // v1 needs v0 and itself: 20
  EXPECT_TRUE(dtrSchedule(g, 20, schedule));
}

} // namespace
