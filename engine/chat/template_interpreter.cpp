#include "engine/chat/template_interpreter.h"
#include "engine/chat/template_error.h"
#include "engine/chat/template_strings.h"
#include "engine/chat/template_value_text.h"
#include <cmath>

namespace hearth::chat {

namespace {

enum class Flow { Normal, Break, Continue };

[[noreturn]] void fail(const std::string& problem) {
    throw TemplateFailure(problem);
}

std::string quoted_type(const Value& v) {
    return "'" + std::string(v.type_name()) + "'";
}

void require_defined(const Value& v) {
    if (v.is_undefined())
        fail("'" + (v.undefined_name().empty() ? "value" : v.undefined_name()) + "' is undefined");
}

template <typename Op> int64_t checked(Op op, int64_t x, int64_t y) {
    int64_t result = 0;
    if (op(x, y, &result)) fail("integer overflow");
    return result;
}
bool add_overflows(int64_t x, int64_t y, int64_t* r) {
    return __builtin_add_overflow(x, y, r);
}
bool sub_overflows(int64_t x, int64_t y, int64_t* r) {
    return __builtin_sub_overflow(x, y, r);
}
bool mul_overflows(int64_t x, int64_t y, int64_t* r) {
    return __builtin_mul_overflow(x, y, r);
}

int64_t floor_div(int64_t a, int64_t b) {
    if (b == 0) fail("integer division or modulo by zero");
    if (a == INT64_MIN && b == -1) fail("integer overflow");
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
    if (b == 0) fail("integer division or modulo by zero");
    if (b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

double float_mod(double a, double b) {
    if (b == 0) fail("float modulo");
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

Value repeat(const Value& sequence, int64_t times, size_t max_bytes) {
    if (times <= 0) return sequence.is_string() ? Value(std::string()) : Value(List{});
    if (sequence.is_string()) {
        const std::string& s = sequence.as_string();
        if (!s.empty() && static_cast<uint64_t>(times) > max_bytes / s.size()) fail("string too long");
        std::string out;
        out.reserve(s.size() * static_cast<size_t>(times));
        for (int64_t i = 0; i < times; ++i)
            out += s;
        return Value(std::move(out));
    }
    const List& items = sequence.as_list();
    if (!items.empty() &&
        static_cast<uint64_t>(times) > static_cast<uint64_t>(kMaxRangeLength) / items.size())
        fail("list too long");
    List out;
    for (int64_t i = 0; i < times; ++i)
        out.insert(out.end(), items.begin(), items.end());
    return Value(std::move(out));
}

Value arithmetic(const std::string& op, const Value& a, const Value& b, size_t max_bytes) {
    if (op == "~") {
        std::string text = to_display_string(a) + to_display_string(b);
        if (text.size() > max_bytes) fail("string too long");
        return Value(std::move(text));
    }
    require_defined(a);
    require_defined(b);
    if (a.is_number() && b.is_number()) {
        bool floats = a.is_float() || b.is_float();
        if (op == "/") {
            if (b.as_double() == 0) fail("division by zero");
            return Value(a.as_double() / b.as_double());
        }
        if (floats) {
            double x = a.as_double(), y = b.as_double();
            if (op == "+") return Value(x + y);
            if (op == "-") return Value(x - y);
            if (op == "*") return Value(x * y);
            if (op == "//") {
                if (y == 0) fail("float floor division by zero");
                return Value(std::floor(x / y));
            }
            if (op == "%") return Value(float_mod(x, y));
            if (op == "**") return Value(std::pow(x, y));
        } else {
            int64_t x = a.as_int(), y = b.as_int();
            if (op == "+") return Value(checked(add_overflows, x, y));
            if (op == "-") return Value(checked(sub_overflows, x, y));
            if (op == "*") return Value(checked(mul_overflows, x, y));
            if (op == "//") return Value(floor_div(x, y));
            if (op == "%") return Value(floor_mod(x, y));
            if (op == "**") {
                if (y < 0) return Value(std::pow(static_cast<double>(x), static_cast<double>(y)));
                int64_t result = 1;
                for (int64_t i = 0; i < y; ++i) {
                    result = checked(mul_overflows, result, x);
                    if (result == 0 || result == 1) break;
                }
                return Value(result);
            }
        }
    }
    if (op == "+" && a.is_string() && b.is_string()) {
        if (a.as_string().size() + b.as_string().size() > max_bytes) fail("string too long");
        return Value(a.as_string() + b.as_string());
    }
    if (op == "+" && a.is_list() && b.is_list()) {
        List out = a.as_list();
        out.insert(out.end(), b.as_list().begin(), b.as_list().end());
        return Value(std::move(out));
    }
    if (op == "*" && (a.is_string() || a.is_list()) && (b.is_int() || b.is_bool()))
        return repeat(a, b.as_int(), max_bytes);
    if (op == "*" && (b.is_string() || b.is_list()) && (a.is_int() || a.is_bool()))
        return repeat(b, a.as_int(), max_bytes);
    fail("unsupported operand type(s) for " + op + ": " + quoted_type(a) + " and " + quoted_type(b));
}

bool contains(const Value& container, const Value& item) {
    switch (container.kind()) {
    case ValueKind::Undefined:
        return false; // Jinja's Undefined iterates as empty
    case ValueKind::String:
        if (!item.is_string())
            fail("'in <string>' requires string as left operand, not " + std::string(item.type_name()));
        return container.as_string().find(item.as_string()) != std::string::npos;
    case ValueKind::List:
        for (const Value& v : container.as_list())
            if (values_equal(v, item)) return true;
        return false;
    case ValueKind::Dict:
        return container.as_dict().find(item) != nullptr;
    case ValueKind::Namespace:
        return container.as_namespace().attributes.find(item) != nullptr;
    default:
        fail("argument of type " + quoted_type(container) + " is not iterable");
    }
}

bool compare(const std::string& op, const Value& a, const Value& b) {
    if (op == "==") return values_equal(a, b);
    if (op == "!=") return !values_equal(a, b);
    if (op == "in") return contains(b, a);
    if (op == "not in") return !contains(b, a);
    require_defined(a);
    require_defined(b);
    if (op == "<") return value_less(a, b);
    if (op == ">") return value_less(b, a);
    if (op == "<=") return !value_less(b, a);
    if (op == ">=") return !value_less(a, b);
    fail("unknown comparison " + op);
}

// Python's slice rules: negative indices count from the end, bounds clamp.
Value slice(const Value& target, const Value& start_v, const Value& stop_v, const Value& step_v) {
    auto optional_int = [](const Value& v, const char* what) -> std::optional<int64_t> {
        if (v.is_undefined() || v.is_none()) return std::nullopt;
        if (!v.is_int() && !v.is_bool()) fail(std::string("slice ") + what + " must be an integer");
        return v.as_int();
    };
    std::optional<int64_t> start_o = optional_int(start_v, "start"), stop_o = optional_int(stop_v, "stop");
    int64_t step = optional_int(step_v, "step").value_or(1);
    if (step == 0) fail("slice step cannot be zero");

    std::vector<size_t> offsets;
    int64_t length = 0;
    if (target.is_string()) {
        offsets = code_point_offsets(target.as_string());
        length = static_cast<int64_t>(offsets.size()) - 1;
    } else if (target.is_list()) {
        length = static_cast<int64_t>(target.as_list().size());
    } else if (target.is_undefined()) {
        return target;
    } else {
        fail(quoted_type(target) + " object is not subscriptable");
    }
    auto adjust = [&](int64_t i) {
        if (i < 0) {
            i += length;
            if (i < 0) i = step < 0 ? -1 : 0;
        } else if (i >= length) {
            i = step < 0 ? length - 1 : length;
        }
        return i;
    };
    int64_t start = start_o ? adjust(*start_o) : (step < 0 ? length - 1 : 0);
    int64_t stop = stop_o ? adjust(*stop_o) : (step < 0 ? -1 : length);
    std::vector<int64_t> picked;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
        picked.push_back(i);
    if (target.is_string()) {
        const std::string& s = target.as_string();
        std::string out;
        for (int64_t i : picked)
            out.append(s, offsets[static_cast<size_t>(i)],
                       offsets[static_cast<size_t>(i) + 1] - offsets[static_cast<size_t>(i)]);
        return Value(std::move(out));
    }
    List out;
    for (int64_t i : picked)
        out.push_back(target.as_list()[static_cast<size_t>(i)]);
    return Value(std::move(out));
}

class Interpreter {
public:
    Interpreter(const Dict& context, const GlobalOptions& globals, const RenderLimits& limits)
        : limits_(limits) {
        Frame top;
        Dict builtins = make_globals(globals);
        for (const auto& [key, value] : builtins.entries())
            top.emplace_back(key.as_string(), value);
        frames_.push_back(std::move(top));
        for (const auto& [key, value] : context.entries())
            if (key.is_string()) assign(key.as_string(), value);
    }

    std::string run(const Body& body) {
        std::string out;
        out_ = &out;
        exec_body(body);
        return out;
    }

private:
    using Frame = std::vector<std::pair<std::string, Value>>;
    const RenderLimits& limits_;
    std::vector<Frame> frames_;
    size_t scope_floor_ = 0; // frames below this (but frame 0) are hidden, inside a macro
    std::string* out_ = nullptr;
    int eval_depth_ = 0;
    int call_depth_ = 0;
    int64_t iterations_ = 0;

    struct DepthGuard {
        int& depth;
        DepthGuard(int& d, int limit) : depth(d) {
            if (++depth > limit) {
                --depth;
                fail("maximum recursion depth exceeded");
            }
        }
        ~DepthGuard() { --depth; }
    };

    static void locate(TemplateFailure& failure, const SourcePosition& at) {
        if (!failure.located() && at.line > 0) {
            failure.line = at.line;
            failure.column = at.column;
        }
    }

    // ---- scopes ----

    Value* find_variable(const std::string& name) {
        for (size_t i = frames_.size(); i-- > scope_floor_;) {
            for (auto& [key, value] : frames_[i])
                if (key == name) return &value;
        }
        if (scope_floor_ > 0) {
            for (auto& [key, value] : frames_[0])
                if (key == name) return &value;
        }
        return nullptr;
    }

    void assign(const std::string& name, Value value) {
        Frame& frame = frames_.back();
        for (auto& [key, existing] : frame) {
            if (key == name) {
                existing = std::move(value);
                return;
            }
        }
        frame.emplace_back(name, std::move(value));
    }

    void assign_targets(const std::vector<std::string>& targets, const Value& value) {
        if (targets.size() == 1) {
            assign(targets[0], value);
            return;
        }
        List items = iteration_items(value);
        if (items.size() != targets.size())
            fail(items.size() < targets.size()
                     ? "not enough values to unpack (expected " + std::to_string(targets.size()) + ", got " +
                           std::to_string(items.size()) + ")"
                     : "too many values to unpack (expected " + std::to_string(targets.size()) + ")");
        for (size_t i = 0; i < targets.size(); ++i)
            assign(targets[i], items[i]);
    }

    struct ScopeGuard {
        std::vector<Frame>& frames;
        explicit ScopeGuard(std::vector<Frame>& f) : frames(f) { frames.emplace_back(); }
        ~ScopeGuard() { frames.pop_back(); }
    };

    void write(const std::string& text) {
        if (out_->size() + text.size() > limits_.max_output_bytes)
            fail("output exceeds " + std::to_string(limits_.max_output_bytes) + " bytes");
        *out_ += text;
    }

    void count_iteration() {
        if (++iterations_ > limits_.max_loop_iterations) fail("template runs too many loop iterations");
    }

    // ---- statements ----

    Flow exec_body(const Body& body) {
        for (const StmtPtr& stmt : body) {
            Flow flow = exec(*stmt);
            if (flow != Flow::Normal) return flow;
        }
        return Flow::Normal;
    }

    Flow exec(const Stmt& stmt) {
        DepthGuard guard(eval_depth_, limits_.max_eval_depth);
        try {
            return exec_unlocated(stmt);
        } catch (TemplateFailure& failure) {
            locate(failure, stmt.position);
            throw;
        }
    }

    Flow exec_unlocated(const Stmt& stmt) {
        switch (stmt.kind) {
        case StmtKind::Text:
            write(stmt.text);
            return Flow::Normal;
        case StmtKind::Output:
            write(to_display_string(eval(*stmt.expr)));
            return Flow::Normal;
        case StmtKind::If:
            for (size_t i = 0; i < stmt.bodies.size(); ++i) {
                if (i >= stmt.conditions.size() || eval(*stmt.conditions[i]).truthy())
                    return exec_body(stmt.bodies[i]);
            }
            return Flow::Normal;
        case StmtKind::For:
            exec_for(stmt);
            return Flow::Normal;
        case StmtKind::Set: {
            Value value = eval(*stmt.expr);
            if (!stmt.text.empty()) {
                Value* target = find_variable(stmt.targets[0]);
                if (!target || !target->is_namespace())
                    fail("cannot assign attribute '" + stmt.text + "' on '" + stmt.targets[0] +
                         "', which is not a namespace");
                target->as_namespace().attributes.set(Value(stmt.text), std::move(value));
            } else {
                assign_targets(stmt.targets, value);
            }
            return Flow::Normal;
        }
        case StmtKind::SetBlock:
            assign(stmt.targets[0], Value(render_to_string(stmt.bodies[0])));
            return Flow::Normal;
        case StmtKind::Macro:
            assign(stmt.text, make_macro(stmt));
            return Flow::Normal;
        case StmtKind::Break:
            return Flow::Break;
        case StmtKind::Continue:
            return Flow::Continue;
        case StmtKind::FilterBlock: {
            Value text(render_to_string(stmt.bodies[0]));
            write(to_display_string(eval_filter(*stmt.expr, &text)));
            return Flow::Normal;
        }
        case StmtKind::Do:
            eval(*stmt.expr);
            return Flow::Normal;
        case StmtKind::Scope:
            return exec_body(stmt.bodies[0]);
        }
        return Flow::Normal;
    }

    std::string render_to_string(const Body& body) {
        std::string captured;
        std::string* saved = out_;
        out_ = &captured;
        try {
            exec_body(body);
        } catch (...) {
            out_ = saved;
            throw;
        }
        out_ = saved;
        return captured;
    }

    Value make_loop(int64_t index, const List& items) {
        const int64_t length = static_cast<int64_t>(items.size());
        Dict loop;
        loop.set(Value("index"), Value(index + 1));
        loop.set(Value("index0"), Value(index));
        loop.set(Value("revindex"), Value(length - index));
        loop.set(Value("revindex0"), Value(length - index - 1));
        loop.set(Value("first"), Value(index == 0));
        loop.set(Value("last"), Value(index == length - 1));
        loop.set(Value("length"), Value(length));
        loop.set(Value("depth"), Value(1));
        loop.set(Value("depth0"), Value(0));
        loop.set(Value("previtem"),
                 index > 0 ? items[static_cast<size_t>(index - 1)] : Value(Undefined{"previtem"}));
        loop.set(Value("nextitem"),
                 index + 1 < length ? items[static_cast<size_t>(index + 1)] : Value(Undefined{"nextitem"}));
        loop.set(Value("cycle"), Value::function("cycle", [index](CallArgs& args) {
                     if (args.positional.empty()) fail("loop.cycle() needs at least one value");
                     return args.positional[static_cast<size_t>(index) % args.positional.size()];
                 }));
        return Value(std::move(loop));
    }

    void exec_for(const Stmt& stmt) {
        Value iterable = eval(*stmt.expr);
        List items;
        if (stmt.condition) {
            for (Value& item : iteration_items(iterable)) {
                count_iteration();
                ScopeGuard scope(frames_);
                assign_targets(stmt.targets, item);
                if (eval(*stmt.condition).truthy()) items.push_back(std::move(item));
            }
        } else {
            items = iteration_items(iterable);
        }
        if (items.empty()) {
            if (stmt.bodies.size() > 1) {
                ScopeGuard scope(frames_);
                exec_body(stmt.bodies[1]);
            }
            return;
        }
        for (size_t i = 0; i < items.size(); ++i) {
            count_iteration();
            ScopeGuard scope(frames_);
            assign("loop", make_loop(static_cast<int64_t>(i), items));
            assign_targets(stmt.targets, items[i]);
            if (exec_body(stmt.bodies[0]) == Flow::Break) break;
        }
    }

    Value make_macro(const Stmt& macro) {
        const Stmt* definition = &macro;
        return Value::function(macro.text,
                               [this, definition](CallArgs& args) { return call_macro(*definition, args); });
    }

    Value call_macro(const Stmt& macro, CallArgs& args) {
        DepthGuard guard(call_depth_, limits_.max_call_depth);
        if (args.positional.size() > macro.parameters.size())
            fail("macro '" + macro.text + "' takes " + std::to_string(macro.parameters.size()) +
                 " arguments, got " + std::to_string(args.positional.size()));
        for (const auto& [name, value] : args.keyword) {
            bool known = false;
            for (const MacroParameter& p : macro.parameters)
                known = known || p.name == name;
            if (!known) fail("macro '" + macro.text + "' has no parameter '" + name + "'");
        }
        size_t saved_floor = scope_floor_;
        ScopeGuard scope(frames_);
        scope_floor_ = frames_.size() - 1;
        try {
            for (size_t i = 0; i < macro.parameters.size(); ++i) {
                const MacroParameter& p = macro.parameters[i];
                Value value(Undefined{p.name});
                bool given = false;
                if (i < args.positional.size()) {
                    value = args.positional[i];
                    given = true;
                }
                for (const auto& [name, v] : args.keyword) {
                    if (name == p.name) {
                        value = v;
                        given = true;
                    }
                }
                if (!given && p.default_value) value = eval(*p.default_value);
                assign(p.name, std::move(value));
            }
            std::string text = render_to_string(macro.bodies[0]);
            scope_floor_ = saved_floor;
            return Value(std::move(text));
        } catch (...) {
            scope_floor_ = saved_floor;
            throw;
        }
    }

    // ---- expressions ----

    Value eval(const Expr& expr) {
        DepthGuard guard(eval_depth_, limits_.max_eval_depth);
        try {
            return eval_unlocated(expr);
        } catch (TemplateFailure& failure) {
            locate(failure, expr.position);
            throw;
        }
    }

    Value eval_optional(const ExprPtr& expr) { return expr ? eval(*expr) : Value(Undefined{}); }

    CallArgs eval_args(const CallArguments& args) {
        CallArgs out;
        for (const ExprPtr& e : args.positional)
            out.positional.push_back(eval(*e));
        for (const auto& [name, e] : args.keyword)
            out.keyword.emplace_back(name, eval(*e));
        return out;
    }

    Value check_size(Value v) {
        if (v.is_string() && v.as_string().size() > limits_.max_output_bytes) fail("string too long");
        return v;
    }

    // Inside {% filter a | b %} the innermost filter (with no operand) takes the block's text.
    Value eval_filter(const Expr& expr, const Value* block_input) {
        Value input;
        if (!expr.items[0]) {
            if (!block_input) fail("filter has no input");
            input = *block_input;
        } else if (block_input) {
            input = eval_filter(*expr.items[0], block_input);
        } else {
            input = eval(*expr.items[0]);
        }
        CallArgs args = eval_args(expr.args);
        return check_size(apply_filter(expr.name, input, args));
    }

    Value call(const Expr& expr) {
        CallArgs args = eval_args(expr.args);
        const Expr& callee = *expr.items[0];
        if (callee.kind == ExprKind::GetAttr) {
            Value self = eval(*callee.items[0]);
            if (!self.is_undefined() && has_method(self, callee.name))
                return check_size(*call_method(self, callee.name, args));
            Value fn = get_attribute(self, callee.name);
            return call_value(fn, args);
        }
        return call_value(eval(callee), args);
    }

    Value call_value(const Value& fn, CallArgs& args) {
        if (fn.is_undefined()) fail("'" + fn.undefined_name() + "' is undefined");
        if (!fn.is_function()) fail(quoted_type(fn) + " object is not callable");
        return check_size(fn.as_function().call(args));
    }

    Value eval_unlocated(const Expr& expr) {
        switch (expr.kind) {
        case ExprKind::Literal:
            return expr.value;
        case ExprKind::Name: {
            if (const Value* v = find_variable(expr.name)) return *v;
            return Value(Undefined{expr.name});
        }
        case ExprKind::ListLiteral: {
            List items;
            for (const ExprPtr& e : expr.items)
                items.push_back(eval(*e));
            return Value(std::move(items));
        }
        case ExprKind::DictLiteral: {
            Dict dict;
            for (size_t i = 0; i + 1 < expr.items.size(); i += 2) {
                Value key = eval(*expr.items[i]);
                dict.set(std::move(key), eval(*expr.items[i + 1]));
            }
            return Value(std::move(dict));
        }
        case ExprKind::Unary: {
            Value v = eval(*expr.items[0]);
            if (expr.name == "not") return Value(!v.truthy());
            require_defined(v);
            if (!v.is_number()) fail("bad operand type for unary " + expr.name + ": " + quoted_type(v));
            if (expr.name == "+") return v.is_bool() ? Value(v.as_int()) : v;
            if (v.is_float()) return Value(-v.as_double());
            if (v.as_int() == INT64_MIN) fail("integer overflow");
            return Value(-v.as_int());
        }
        case ExprKind::Binary: {
            if (expr.name == "and") {
                Value lhs = eval(*expr.items[0]);
                return lhs.truthy() ? eval(*expr.items[1]) : lhs;
            }
            if (expr.name == "or") {
                Value lhs = eval(*expr.items[0]);
                return lhs.truthy() ? lhs : eval(*expr.items[1]);
            }
            Value lhs = eval(*expr.items[0]);
            Value rhs = eval(*expr.items[1]);
            return arithmetic(expr.name, lhs, rhs, limits_.max_output_bytes);
        }
        case ExprKind::Compare: {
            Value lhs = eval(*expr.items[0]);
            for (size_t i = 0; i < expr.compare_ops.size(); ++i) {
                Value rhs = eval(*expr.items[i + 1]);
                if (!compare(expr.compare_ops[i], lhs, rhs)) return Value(false);
                lhs = std::move(rhs);
            }
            return Value(true);
        }
        case ExprKind::Conditional:
            if (eval(*expr.items[1]).truthy()) return eval(*expr.items[0]);
            return eval_optional(expr.items[2]);
        case ExprKind::GetAttr:
            return get_attribute(eval(*expr.items[0]), expr.name);
        case ExprKind::GetItem:
            return get_item(eval(*expr.items[0]), eval(*expr.items[1]));
        case ExprKind::Slice:
            return slice(eval(*expr.items[0]), eval_optional(expr.items[1]), eval_optional(expr.items[2]),
                         eval_optional(expr.items[3]));
        case ExprKind::Call:
            return call(expr);
        case ExprKind::Filter:
            return eval_filter(expr, nullptr);
        case ExprKind::Test: {
            Value v = eval(*expr.items[0]);
            CallArgs args = eval_args(expr.args);
            bool result = apply_test(expr.name, v, args);
            return Value(expr.negated ? !result : result);
        }
        }
        return Value(Undefined{});
    }
};

} // namespace

std::string run_template(const Body& body, const Dict& context, const GlobalOptions& globals,
                         const RenderLimits& limits) {
    Interpreter interpreter(context, globals, limits);
    return interpreter.run(body);
}

} // namespace hearth::chat
