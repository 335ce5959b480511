#pragma once
// The parsed form of a template: expressions and statements, each knowing where
// in the source it began. Built once by the parser, read by the interpreter.
#include "engine/chat/template_value.h"
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hearth::chat {

struct SourcePosition {
    int line = 0;
    int column = 0;
};

enum class ExprKind {
    Literal,     // value
    Name,        // name
    ListLiteral, // items
    DictLiteral, // items: key, value, key, value, ...
    Unary,       // op ("-", "+", "not"), items[0]
    Binary,      // op, items[0], items[1]; "and"/"or" short-circuit
    Compare,     // items[0] then (compare_ops[i], items[i + 1]) chained
    Conditional, // items: then, condition, else (else may be null)
    GetAttr,     // items[0].name
    GetItem,     // items[0][items[1]]
    Slice,       // items[0][items[1]:items[2]:items[3]] (null parts allowed)
    Call,        // items[0](args)
    Filter,      // items[0] | name(args); items[0] is null inside {% filter %}
    Test,        // items[0] is [not] name(args)
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct CallArguments {
    std::vector<ExprPtr> positional;
    std::vector<std::pair<std::string, ExprPtr>> keyword;
};

struct Expr {
    ExprKind kind = ExprKind::Literal;
    SourcePosition position;
    Value value;                // Literal
    std::string name;           // Name, GetAttr, Filter, Test; the operator of Unary and Binary
    bool negated = false;       // Test: "is not"
    std::vector<ExprPtr> items; // operands, see ExprKind
    std::vector<std::string> compare_ops;
    CallArguments args; // Call, Filter, Test
};

enum class StmtKind {
    Text,     // text
    Output,   // {{ expr }}
    If,       // conditions[i] guards bodies[i]; a last body without condition is the else
    For,      // for targets in expr [if condition]: bodies[0], else bodies[1]
    Set,      // set targets = expr, or set targets[0].attribute = expr
    SetBlock, // set targets[0] %}bodies[0]{% endset
    Macro,    // macro name(parameters) bodies[0]
    Break,
    Continue,
    FilterBlock, // filter expr(with null operand) bodies[0]
    Do,          // do expr
    Scope,       // bodies[0] run as they are (e.g. {% generation %})
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct MacroParameter {
    std::string name;
    ExprPtr default_value; // may be null
};

struct Stmt {
    StmtKind kind = StmtKind::Text;
    SourcePosition position;
    std::string text;                // Text; Macro name; Set attribute for namespace assignment
    ExprPtr expr;                    // Output, For iterable, Set value, FilterBlock filter, Do
    ExprPtr condition;               // For filter
    std::vector<ExprPtr> conditions; // If
    std::vector<Body> bodies;
    std::vector<std::string> targets; // For / Set names
    std::vector<MacroParameter> parameters;
};

} // namespace hearth::chat
