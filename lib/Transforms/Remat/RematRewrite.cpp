//===- RematRewrite.cpp - a function's body in schedule order -------------===//

#include "RematRewrite.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace tad;
using remat::Event;

void tad::applySchedule(Block &body, const RematProblem &problem,
                   const std::vector<Event> &schedule) {
  Operation *terminator = body.getTerminator();
  for (Operation *constant : problem.constants)
    constant->moveBefore(&body, body.begin());
  // The latest instance of every value another node reads, and the value
  // each clone is an instance of.
  DenseMap<Value, Value> current, originalOf;
  auto latest = [&](Value v) {
    auto it = current.find(v);
    return it == current.end() ? v : it->second;
  };
  OpBuilder builder(terminator);
  // A view is of one instance of its source: once the source is computed
  // again, a reader of the view reads a view of the new instance, made
  // here (views cost nothing), so that the old instance can be freed.
  std::function<Value(Value)> resolve = [&](Value v) -> Value {
    Value now = latest(v);
    Operation *view = now.getDefiningOp();
    std::optional<unsigned> viewed = view && view->getBlock() == &body
                                         ? getViewedOperand(view)
                                         : std::nullopt;
    if (!viewed)
      return now;
    Value source = view->getOperand(*viewed);
    Value sourceNow =
        resolve(originalOf.lookup(source) ? originalOf.lookup(source) : source);
    if (sourceNow == source)
      return now;
    IRMapping mapping;
    for (Value operand : view->getOperands())
      mapping.map(operand, latest(operand));
    mapping.map(source, sourceNow);
    Value fresh = builder.clone(*view, mapping)->getResult(0);
    current[v] = fresh;
    originalOf[fresh] = v;
    return fresh;
  };
  std::vector<char> placed(problem.graph.size(), 0);
  // Updates that must run after every reader of what they overwrite run
  // last (RematProblem::lastUpdates).
  std::vector<int> events;
  for (const Event &event : schedule)
    if (event.kind == Event::compute && event.node != problem.sink &&
        !llvm::is_contained(problem.lastUpdates, event.node))
      events.push_back(event.node);
  for (int u : problem.lastUpdates)
    events.push_back(u);
  for (int node : events) {
    Event event{Event::compute, node};
    const auto &group = problem.groups[event.node];
    // The copy of a constant that a loop updates in place: the constant
    // stays at the top, and bufferization makes the copy (a tape's start
    // too: the lowering allocates it just before its loop).
    if (isConstantOrTapeStart(group.back()))
      continue;
    // What the group reads from outside: operands and captured values,
    // each at its latest instance (views made first, before the group).
    llvm::SetVector<Value> read;
    for (Operation *op : group) {
      for (Value operand : op->getOperands())
        read.insert(operand);
      getUsedValuesDefinedAbove(op->getRegions(), read);
    }
    IRMapping mapping;
    for (Value v : read)
      mapping.map(v, resolve(v));
    if (!placed[event.node]) {
      placed[event.node] = 1;
      for (Operation *op : group) {
        op->moveBefore(terminator);
        for (Value v : read)
          if (Value now = mapping.lookup(v); now != v)
            for (Region &region : op->getRegions())
              replaceAllUsesInRegionWith(v, now, region);
        for (OpOperand &operand : op->getOpOperands())
          operand.set(mapping.lookupOrDefault(operand.get()));
      }
      for (Value result : group.back()->getResults())
        current[result] = result;
      continue;
    }
    Operation *clone = nullptr;
    for (Operation *op : group)
      clone = builder.clone(*op, mapping);
    for (auto [original, copy] :
         llvm::zip(group.back()->getResults(), clone->getResults())) {
      current[original] = copy;
      originalOf[copy] = original;
    }
  }
  for (OpOperand &operand : terminator->getOpOperands())
    operand.set(resolve(operand.get()));
}
