#include "engine/chat/template_parser.h"
#include "engine/chat/template_error.h"
#include <charconv>
#include <cstdlib>
#include <initializer_list>

namespace hearth::chat {

namespace {

// Deeper nesting than this is refused rather than risking the stack.
constexpr int kMaxNesting = 200;

class Parser {
public:
    explicit Parser(const std::vector<Token>& tokens) : tokens_(tokens) {}

    Body parse() {
        Body body = parse_body({}, "");
        if (current().kind != TokenKind::End) fail_at(current(), "unexpected '" + peek_keyword() + "'");
        return body;
    }

private:
    const std::vector<Token>& tokens_;
    size_t pos_ = 0;
    int depth_ = 0;
    int loop_depth_ = 0;

    struct DepthGuard {
        Parser& parser;
        explicit DepthGuard(Parser& p, const Token& at) : parser(p) {
            if (++parser.depth_ > kMaxNesting) parser.fail_at(at, "template nested too deeply");
        }
        ~DepthGuard() { --parser.depth_; }
    };

    const Token& current() const { return tokens_[pos_]; }
    const Token& peek(size_t ahead = 1) const {
        size_t at = pos_ + ahead;
        return tokens_[at < tokens_.size() ? at : tokens_.size() - 1];
    }
    const Token& advance() {
        const Token& t = tokens_[pos_];
        if (pos_ + 1 < tokens_.size()) ++pos_;
        return t;
    }

    [[noreturn]] void fail_at(const Token& t, const std::string& problem) const {
        throw TemplateFailure(problem, t.line, t.column);
    }

    static std::string describe(const Token& t) {
        switch (t.kind) {
        case TokenKind::End:
            return "end of template";
        case TokenKind::BlockEnd:
            return "'%}'";
        case TokenKind::VariableEnd:
            return "'}}'";
        case TokenKind::BlockBegin:
            return "'{%'";
        case TokenKind::VariableBegin:
            return "'{{'";
        case TokenKind::String:
            return "string";
        case TokenKind::Text:
            return "text";
        default:
            return "'" + t.text + "'";
        }
    }

    bool is_op(const char* op) const { return current().kind == TokenKind::Operator && current().text == op; }
    bool is_name(const char* name) const {
        return current().kind == TokenKind::Name && current().text == name;
    }
    bool skip_op(const char* op) {
        if (!is_op(op)) return false;
        advance();
        return true;
    }
    bool skip_name(const char* name) {
        if (!is_name(name)) return false;
        advance();
        return true;
    }
    void expect_op(const char* op) {
        if (!skip_op(op))
            fail_at(current(), std::string("expected '") + op + "', got " + describe(current()));
    }
    std::string expect_name(const char* what) {
        if (current().kind != TokenKind::Name)
            fail_at(current(), std::string("expected ") + what + ", got " + describe(current()));
        return advance().text;
    }
    void expect_block_end() {
        if (current().kind != TokenKind::BlockEnd)
            fail_at(current(), "expected end of statement '%}', got " + describe(current()));
        advance();
    }

    // The keyword of the block tag at the current position, or "".
    std::string peek_keyword() const {
        if (current().kind == TokenKind::BlockBegin && peek().kind == TokenKind::Name) return peek().text;
        return current().kind == TokenKind::BlockBegin ? "" : current().text;
    }

    static SourcePosition position_of(const Token& t) { return SourcePosition{t.line, t.column}; }

    // ---- statements ----

    // Parses until a block tag whose keyword is one of `ends` (left unconsumed) or
    // the end of the template (an error when `ends` is not empty).
    Body parse_body(std::initializer_list<const char*> ends, const std::string& open_block,
                    const Token* opened_at = nullptr) {
        DepthGuard guard(*this, current());
        Body body;
        while (true) {
            const Token& t = current();
            if (t.kind == TokenKind::End) {
                if (ends.size() == 0) return body;
                std::string expected;
                for (const char* e : ends)
                    expected += std::string(expected.empty() ? "" : " or ") + "'" + e + "'";
                std::string where = opened_at ? " opened at line " + std::to_string(opened_at->line) : "";
                fail_at(opened_at ? *opened_at : t,
                        "unclosed '" + open_block + "' block" + where + ": expected " + expected);
            }
            if (t.kind == TokenKind::Text) {
                auto stmt = std::make_unique<Stmt>();
                stmt->kind = StmtKind::Text;
                stmt->position = position_of(t);
                stmt->text = t.text;
                advance();
                body.push_back(std::move(stmt));
            } else if (t.kind == TokenKind::VariableBegin) {
                advance();
                auto stmt = std::make_unique<Stmt>();
                stmt->kind = StmtKind::Output;
                stmt->position = position_of(t);
                stmt->expr = parse_tuple();
                if (current().kind != TokenKind::VariableEnd)
                    fail_at(current(), "expected '}}', got " + describe(current()));
                advance();
                body.push_back(std::move(stmt));
            } else if (t.kind == TokenKind::BlockBegin) {
                std::string keyword = peek_keyword();
                for (const char* e : ends)
                    if (keyword == e) return body;
                body.push_back(parse_statement());
            } else {
                fail_at(t, "unexpected " + describe(t));
            }
        }
    }

    // Consumes "{% keyword" of an end tag already seen by parse_body.
    std::string take_end_keyword() {
        advance(); // {%
        return advance().text;
    }

    StmtPtr parse_statement() {
        const Token& begin = advance(); // {%
        if (current().kind != TokenKind::Name)
            fail_at(current(), "expected a statement, got " + describe(current()));
        const Token& keyword_token = current();
        std::string keyword = advance().text;
        auto stmt = std::make_unique<Stmt>();
        stmt->position = position_of(begin);
        if (keyword == "if") return parse_if(std::move(stmt), keyword_token);
        if (keyword == "for") return parse_for(std::move(stmt), keyword_token);
        if (keyword == "set") return parse_set(std::move(stmt), keyword_token);
        if (keyword == "macro") return parse_macro(std::move(stmt), keyword_token);
        if (keyword == "filter") return parse_filter_block(std::move(stmt), keyword_token);
        if (keyword == "break" || keyword == "continue") {
            if (loop_depth_ == 0) fail_at(keyword_token, "'" + keyword + "' outside of a loop");
            stmt->kind = keyword == "break" ? StmtKind::Break : StmtKind::Continue;
            expect_block_end();
            return stmt;
        }
        if (keyword == "do") {
            stmt->kind = StmtKind::Do;
            stmt->expr = parse_tuple();
            expect_block_end();
            return stmt;
        }
        if (keyword == "generation") { // Hugging Face's marker around assistant text
            stmt->kind = StmtKind::Scope;
            expect_block_end();
            stmt->bodies.push_back(parse_body({"endgeneration"}, "generation", &keyword_token));
            take_end_keyword();
            expect_block_end();
            return stmt;
        }
        static const char* const stray_ends[] = {"endif", "endfor", "endset",        "endmacro", "endfilter",
                                                 "elif",  "else",   "endgeneration", "endraw"};
        for (const char* e : stray_ends)
            if (keyword == e) fail_at(keyword_token, "unexpected '" + keyword + "' (no block to close)");
        fail_at(keyword_token, "unknown tag '" + keyword + "'");
    }

    StmtPtr parse_if(StmtPtr stmt, const Token& opened) {
        stmt->kind = StmtKind::If;
        stmt->conditions.push_back(parse_tuple());
        expect_block_end();
        while (true) {
            stmt->bodies.push_back(parse_body({"elif", "else", "endif"}, "if", &opened));
            std::string end = take_end_keyword();
            if (end == "elif") {
                stmt->conditions.push_back(parse_tuple());
                expect_block_end();
            } else if (end == "else") {
                expect_block_end();
                stmt->bodies.push_back(parse_body({"endif"}, "if", &opened));
                take_end_keyword();
                expect_block_end();
                return stmt;
            } else {
                expect_block_end();
                return stmt;
            }
        }
    }

    std::vector<std::string> parse_targets() {
        std::vector<std::string> targets;
        bool parenthesized = skip_op("(");
        targets.push_back(expect_name("a variable name"));
        while (skip_op(",")) {
            if (current().kind != TokenKind::Name) break;
            targets.push_back(expect_name("a variable name"));
        }
        if (parenthesized) expect_op(")");
        return targets;
    }

    StmtPtr parse_for(StmtPtr stmt, const Token& opened) {
        stmt->kind = StmtKind::For;
        stmt->targets = parse_targets();
        if (!skip_name("in")) fail_at(current(), "expected 'in' in for loop, got " + describe(current()));
        stmt->expr = parse_or();
        if (skip_name("if")) stmt->condition = parse_expression();
        if (is_name("recursive")) fail_at(current(), "recursive loops are not supported");
        expect_block_end();
        ++loop_depth_;
        stmt->bodies.push_back(parse_body({"else", "endfor"}, "for", &opened));
        --loop_depth_;
        if (take_end_keyword() == "else") {
            expect_block_end();
            stmt->bodies.push_back(parse_body({"endfor"}, "for", &opened));
            take_end_keyword();
        }
        expect_block_end();
        return stmt;
    }

    StmtPtr parse_set(StmtPtr stmt, const Token& opened) {
        std::string first = expect_name("a variable name");
        if (skip_op(".")) {
            stmt->targets.push_back(first);
            stmt->text = expect_name("an attribute name");
        } else {
            stmt->targets.push_back(first);
            while (skip_op(","))
                stmt->targets.push_back(expect_name("a variable name"));
        }
        if (skip_op("=")) {
            stmt->kind = StmtKind::Set;
            stmt->expr = parse_tuple();
            expect_block_end();
            return stmt;
        }
        if (stmt->targets.size() != 1 || !stmt->text.empty())
            fail_at(current(), "expected '=' in set, got " + describe(current()));
        stmt->kind = StmtKind::SetBlock;
        expect_block_end();
        stmt->bodies.push_back(parse_body({"endset"}, "set", &opened));
        take_end_keyword();
        expect_block_end();
        return stmt;
    }

    StmtPtr parse_macro(StmtPtr stmt, const Token& opened) {
        stmt->kind = StmtKind::Macro;
        stmt->text = expect_name("a macro name");
        expect_op("(");
        while (!is_op(")")) {
            MacroParameter parameter;
            parameter.name = expect_name("a parameter name");
            if (skip_op("=")) parameter.default_value = parse_expression();
            stmt->parameters.push_back(std::move(parameter));
            if (!skip_op(",")) break;
        }
        expect_op(")");
        expect_block_end();
        int saved_loop_depth = loop_depth_;
        loop_depth_ = 0; // break inside a macro cannot leave the caller's loop
        stmt->bodies.push_back(parse_body({"endmacro"}, "macro", &opened));
        loop_depth_ = saved_loop_depth;
        take_end_keyword();
        if (current().kind == TokenKind::Name) advance(); // {% endmacro name %}
        expect_block_end();
        return stmt;
    }

    StmtPtr parse_filter_block(StmtPtr stmt, const Token& opened) {
        stmt->kind = StmtKind::FilterBlock;
        ExprPtr chain; // null operand: the block's output
        do {
            chain = parse_filter(std::move(chain));
        } while (skip_op("|"));
        stmt->expr = std::move(chain);
        expect_block_end();
        stmt->bodies.push_back(parse_body({"endfilter"}, "filter", &opened));
        take_end_keyword();
        expect_block_end();
        return stmt;
    }

    // ---- expressions ----

    ExprPtr make(ExprKind kind, const Token& at) {
        auto e = std::make_unique<Expr>();
        e->kind = kind;
        e->position = position_of(at);
        return e;
    }

    // An expression, or several separated by commas (a tuple, kept as a list).
    ExprPtr parse_tuple() {
        const Token& start = current();
        ExprPtr first = parse_expression();
        if (!is_op(",")) return first;
        auto list = make(ExprKind::ListLiteral, start);
        list->items.push_back(std::move(first));
        while (skip_op(",")) {
            if (current().kind == TokenKind::BlockEnd || current().kind == TokenKind::VariableEnd ||
                is_op(")"))
                break;
            list->items.push_back(parse_expression());
        }
        return list;
    }

    ExprPtr parse_expression() {
        DepthGuard guard(*this, current());
        ExprPtr expr = parse_or();
        while (is_name("if")) {
            const Token& at = advance();
            auto cond = make(ExprKind::Conditional, at);
            ExprPtr condition = parse_or();
            ExprPtr otherwise;
            if (skip_name("else")) otherwise = parse_expression();
            cond->items.push_back(std::move(expr));
            cond->items.push_back(std::move(condition));
            cond->items.push_back(std::move(otherwise));
            expr = std::move(cond);
        }
        return expr;
    }

    ExprPtr binary(const Token& at, std::string op, ExprPtr lhs, ExprPtr rhs) {
        auto e = make(ExprKind::Binary, at);
        e->name = std::move(op);
        e->items.push_back(std::move(lhs));
        e->items.push_back(std::move(rhs));
        return e;
    }

    ExprPtr parse_or() {
        ExprPtr lhs = parse_and();
        while (is_name("or")) {
            const Token& at = advance();
            lhs = binary(at, "or", std::move(lhs), parse_and());
        }
        return lhs;
    }

    ExprPtr parse_and() {
        ExprPtr lhs = parse_not();
        while (is_name("and")) {
            const Token& at = advance();
            lhs = binary(at, "and", std::move(lhs), parse_not());
        }
        return lhs;
    }

    ExprPtr parse_not() {
        if (is_name("not")) {
            DepthGuard guard(*this, current());
            const Token& at = advance();
            auto e = make(ExprKind::Unary, at);
            e->name = "not";
            e->items.push_back(parse_not());
            return e;
        }
        return parse_compare();
    }

    ExprPtr parse_compare() {
        const Token& start = current();
        ExprPtr first = parse_math1();
        ExprPtr compare;
        while (true) {
            std::string op;
            if (current().kind == TokenKind::Operator &&
                (current().text == "==" || current().text == "!=" || current().text == "<" ||
                 current().text == "<=" || current().text == ">" || current().text == ">=")) {
                op = advance().text;
            } else if (is_name("in")) {
                advance();
                op = "in";
            } else if (is_name("not") && peek().kind == TokenKind::Name && peek().text == "in") {
                advance();
                advance();
                op = "not in";
            } else {
                break;
            }
            if (!compare) {
                compare = make(ExprKind::Compare, start);
                compare->items.push_back(std::move(first));
            }
            compare->compare_ops.push_back(op);
            compare->items.push_back(parse_math1());
        }
        return compare ? std::move(compare) : std::move(first);
    }

    ExprPtr parse_math1() {
        ExprPtr lhs = parse_concat();
        while (is_op("+") || is_op("-")) {
            const Token& at = advance();
            lhs = binary(at, at.text, std::move(lhs), parse_concat());
        }
        return lhs;
    }

    ExprPtr parse_concat() {
        ExprPtr lhs = parse_math2();
        while (is_op("~")) {
            const Token& at = advance();
            lhs = binary(at, "~", std::move(lhs), parse_math2());
        }
        return lhs;
    }

    ExprPtr parse_math2() {
        ExprPtr lhs = parse_pow();
        while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
            const Token& at = advance();
            lhs = binary(at, at.text, std::move(lhs), parse_pow());
        }
        return lhs;
    }

    ExprPtr parse_pow() {
        ExprPtr lhs = parse_unary(true);
        while (is_op("**")) {
            const Token& at = advance();
            lhs = binary(at, "**", std::move(lhs), parse_unary(true));
        }
        return lhs;
    }

    ExprPtr parse_unary(bool with_filter) {
        DepthGuard guard(*this, current());
        ExprPtr node;
        if (is_op("-") || is_op("+")) {
            const Token& at = advance();
            node = make(ExprKind::Unary, at);
            node->name = at.text;
            node->items.push_back(parse_unary(false));
        } else {
            node = parse_primary();
        }
        node = parse_postfix(std::move(node));
        if (with_filter) node = parse_filters_and_tests(std::move(node));
        return node;
    }

    ExprPtr parse_primary() {
        const Token& t = current();
        switch (t.kind) {
        case TokenKind::Name: {
            advance();
            auto e = make(ExprKind::Literal, t);
            if (t.text == "true" || t.text == "True")
                e->value = Value(true);
            else if (t.text == "false" || t.text == "False")
                e->value = Value(false);
            else if (t.text == "none" || t.text == "None")
                e->value = Value(None{});
            else {
                e->kind = ExprKind::Name;
                e->name = t.text;
            }
            return e;
        }
        case TokenKind::String: {
            auto e = make(ExprKind::Literal, t);
            std::string text;
            while (current().kind == TokenKind::String)
                text += advance().text; // "a" "b" is "ab"
            e->value = Value(std::move(text));
            return e;
        }
        case TokenKind::Integer: {
            advance();
            auto e = make(ExprKind::Literal, t);
            e->value = Value(integer_literal(t));
            return e;
        }
        case TokenKind::Float: {
            advance();
            auto e = make(ExprKind::Literal, t);
            e->value = Value(std::strtod(t.text.c_str(), nullptr));
            return e;
        }
        case TokenKind::Operator:
            if (t.text == "(") {
                advance();
                if (skip_op(")")) return make(ExprKind::ListLiteral, t); // ()
                ExprPtr inner = parse_tuple();
                expect_op(")");
                return inner;
            }
            if (t.text == "[") {
                advance();
                auto e = make(ExprKind::ListLiteral, t);
                while (!is_op("]")) {
                    e->items.push_back(parse_expression());
                    if (!skip_op(",")) break;
                }
                expect_op("]");
                return e;
            }
            if (t.text == "{") {
                advance();
                auto e = make(ExprKind::DictLiteral, t);
                while (!is_op("}")) {
                    e->items.push_back(parse_expression());
                    expect_op(":");
                    e->items.push_back(parse_expression());
                    if (!skip_op(",")) break;
                }
                expect_op("}");
                return e;
            }
            break;
        default:
            break;
        }
        fail_at(t, "unexpected " + describe(t) + " in expression");
    }

    // An integer literal's value; one beyond int64 is an error of the template, not a crash.
    int64_t integer_literal(const Token& t) {
        int64_t v = 0;
        auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
        if (ec != std::errc() || end != t.text.data() + t.text.size())
            fail_at(t, "integer literal too large");
        return v;
    }

    ExprPtr parse_postfix(ExprPtr node) {
        while (true) {
            if (is_op(".")) {
                const Token& at = advance();
                if (current().kind == TokenKind::Integer) {
                    auto e = make(ExprKind::GetItem, at);
                    auto index = make(ExprKind::Literal, current());
                    index->value = Value(integer_literal(advance()));
                    e->items.push_back(std::move(node));
                    e->items.push_back(std::move(index));
                    node = std::move(e);
                    continue;
                }
                auto e = make(ExprKind::GetAttr, at);
                e->name = expect_name("an attribute name");
                e->items.push_back(std::move(node));
                node = std::move(e);
            } else if (is_op("[")) {
                node = parse_subscript(std::move(node));
            } else if (is_op("(")) {
                node = parse_call(std::move(node));
            } else {
                return node;
            }
        }
    }

    ExprPtr parse_subscript(ExprPtr node) {
        const Token& at = advance(); // [
        ExprPtr start, stop, step;
        if (!is_op(":")) start = parse_expression();
        if (skip_op(":")) {
            if (!is_op(":") && !is_op("]")) stop = parse_expression();
            if (skip_op(":") && !is_op("]")) step = parse_expression();
            expect_op("]");
            auto e = make(ExprKind::Slice, at);
            e->items.push_back(std::move(node));
            e->items.push_back(std::move(start));
            e->items.push_back(std::move(stop));
            e->items.push_back(std::move(step));
            return e;
        }
        expect_op("]");
        auto e = make(ExprKind::GetItem, at);
        e->items.push_back(std::move(node));
        e->items.push_back(std::move(start));
        return e;
    }

    CallArguments parse_call_arguments() {
        expect_op("(");
        CallArguments args;
        while (!is_op(")")) {
            if (current().kind == TokenKind::Name && peek().kind == TokenKind::Operator &&
                peek().text == "=") {
                std::string name = advance().text;
                advance(); // =
                args.keyword.emplace_back(std::move(name), parse_expression());
            } else {
                if (!args.keyword.empty()) fail_at(current(), "positional argument after keyword argument");
                args.positional.push_back(parse_expression());
            }
            if (!skip_op(",")) break;
        }
        expect_op(")");
        return args;
    }

    ExprPtr parse_call(ExprPtr callee) {
        auto e = make(ExprKind::Call, current());
        e->position = callee->position; // errors point at what was called
        e->args = parse_call_arguments();
        e->items.push_back(std::move(callee));
        return e;
    }

    std::string parse_dotted_name(const char* what) {
        std::string name = expect_name(what);
        while (is_op(".") && peek().kind == TokenKind::Name) {
            advance();
            name += "." + advance().text;
        }
        return name;
    }

    ExprPtr parse_filter(ExprPtr operand) {
        auto e = make(ExprKind::Filter, current());
        e->name = parse_dotted_name("a filter name");
        if (is_op("(")) e->args = parse_call_arguments();
        e->items.push_back(std::move(operand));
        return e;
    }

    bool starts_test_argument() const {
        const Token& t = current();
        if (t.kind == TokenKind::Name) {
            static const char* const stop_words[] = {"else", "or", "and", "if", "in", "not", "is"};
            for (const char* w : stop_words)
                if (t.text == w) return false;
            return true;
        }
        return t.kind == TokenKind::String || t.kind == TokenKind::Integer || t.kind == TokenKind::Float ||
               (t.kind == TokenKind::Operator && (t.text == "[" || t.text == "{"));
    }

    ExprPtr parse_filters_and_tests(ExprPtr node) {
        while (true) {
            if (is_op("|")) {
                advance();
                node = parse_filter(std::move(node));
            } else if (is_name("is")) {
                const Token& at = advance();
                auto e = make(ExprKind::Test, at);
                e->negated = skip_name("not");
                e->name = parse_dotted_name("a test name");
                if (is_op("(")) {
                    e->args = parse_call_arguments();
                } else if (starts_test_argument()) {
                    e->args.positional.push_back(parse_postfix(parse_primary()));
                }
                e->items.push_back(std::move(node));
                node = std::move(e);
            } else if (is_op("(")) {
                node = parse_call(std::move(node));
            } else {
                return node;
            }
        }
    }
};

} // namespace

Body parse_template(const std::vector<Token>& tokens) {
    return Parser(tokens).parse();
}

} // namespace hearth::chat
