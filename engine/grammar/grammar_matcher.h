#pragma once
// Where a text stands in a grammar: the set of parse stacks that have read it, advanced one
// byte at a time (UTF-8 is decoded on the way; a state may hold the first bytes of a
// character, which every stack checks can still match). A stack is a chain of nodes (a
// position in the grammar's code and the node to return to), interned: equal stacks are the
// same node, so a state is a short list of node ids and comparing states is cheap. Work done
// to try bytes out (a token mask) is undone with mark() and rollback(), so it leaves nothing
// behind; capacity is kept, so a steady generation allocates nothing. A grammar so ambiguous
// that a state would hold more than kMaxStacks stacks, or the matcher more than kMaxNodes nodes,
// throws GrammarError: nested optional repetitions can otherwise take any memory and time.
#include "engine/grammar/grammar.h"
#include <memory>
#include <span>
#include <string_view>

namespace hearth::engine {

struct GrammarState {
    std::vector<uint32_t> stacks; // node ids; kAccepted: the whole grammar was read
    uint32_t utf8_value = 0;      // the character begun, when utf8_pending > 0
    uint32_t utf8_least = 0;      // the smallest code point of its length (no overlong forms)
    uint8_t utf8_pending = 0;     // continuation bytes still to come

    [[nodiscard]] bool dead() const { return stacks.empty(); }
};

class GrammarMatcher {
public:
    static constexpr uint32_t kAccepted = 0; // the empty stack
    static constexpr size_t kMaxStacks = 4096;
    static constexpr size_t kMaxNodes = size_t{1} << 20;

    explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar);

    // The state before any text.
    [[nodiscard]] GrammarState start();
    // `to` = `from` after one byte; false (and `to` dead) when no stack takes it. Both throw
    // GrammarError past the limits above.
    bool advance(const GrammarState& from, uint8_t byte, GrammarState& to);
    // Bytes in place; false if some byte was refused (the state is then dead).
    bool advance(GrammarState& state, std::string_view bytes);

    // Whether the text read so far is a whole sentence of the grammar.
    [[nodiscard]] static bool accepting(const GrammarState& state);
    // Whether it is whole and nothing can follow: the generation must end.
    [[nodiscard]] static bool finished(const GrammarState& state);

    [[nodiscard]] size_t mark() const { return nodes_.size(); }
    void rollback(size_t mark); // forgets the nodes made since mark(): no state made since may be used

    [[nodiscard]] const Grammar& grammar() const { return *grammar_; }

private:
    struct Node {
        uint32_t pos;    // a Chars element (a stack's top) or where to go on after a rule
        uint32_t parent; // the node below; kAccepted at the bottom
    };

    uint32_t intern(uint32_t pos, uint32_t parent);
    void rehash(size_t slots);
    void emit(uint32_t id, std::vector<uint32_t>& out);
    void expand(uint32_t pos, uint32_t parent, std::vector<uint32_t>& out);
    void new_epoch();
    void step(const std::vector<uint32_t>& from, uint32_t c, std::vector<uint32_t>& out);
    [[nodiscard]] bool can_begin(const std::vector<uint32_t>& stacks, uint32_t first, uint32_t last) const;

    std::shared_ptr<const Grammar> grammar_;
    std::vector<Node> nodes_;       // [0] is the empty stack
    std::vector<uint32_t> slots_;   // open addressing: node ids, 0 free
    std::vector<uint32_t> visited_; // per node: the step (epoch) that returned to it last
    std::vector<uint32_t> emitted_; // per node: the step (epoch) that put it in its output last
    std::vector<Node> pending_;     // expand()'s work: (position, parent) still to expand
    uint32_t epoch_ = 0;
};

} // namespace hearth::engine
