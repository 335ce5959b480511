#include "engine/chat/chat_template.h"
#include "engine/chat/template_ast.h"
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_capabilities.h"
#include "engine/chat/template_interpreter.h"
#include "engine/chat/template_lexer.h"
#include "engine/chat/template_parser.h"
#include "engine/chat/template_value_text.h"

namespace hearth::chat {

namespace {

std::string locate_message(const std::string& name, const std::string& problem, int line, int column) {
    if (line <= 0) return name + ": " + problem;
    return name + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + problem;
}

// Jinja rejects unknown filters and tests when it compiles, even in branches never taken.
void check_expr(const Expr* e);

void check_args(const CallArguments& args) {
    for (const ExprPtr& a : args.positional)
        check_expr(a.get());
    for (const auto& [name, a] : args.keyword)
        check_expr(a.get());
}

void check_expr(const Expr* e) {
    if (!e) return;
    if (e->kind == ExprKind::Filter && !is_known_filter(e->name))
        throw TemplateFailure("no filter named '" + e->name + "'", e->position.line, e->position.column);
    if (e->kind == ExprKind::Test && !is_known_test(e->name))
        throw TemplateFailure("no test named '" + e->name + "'", e->position.line, e->position.column);
    for (const ExprPtr& item : e->items)
        check_expr(item.get());
    check_args(e->args);
}

void check_body(const Body& body) {
    for (const StmtPtr& s : body) {
        check_expr(s->expr.get());
        check_expr(s->condition.get());
        for (const ExprPtr& c : s->conditions)
            check_expr(c.get());
        for (const MacroParameter& p : s->parameters)
            check_expr(p.default_value.get());
        for (const Body& b : s->bodies)
            check_body(b);
    }
}

} // namespace

TemplateError::TemplateError(const std::string& template_name, std::string problem, int line, int column,
                             bool raised)
    : hearth::Error(locate_message(template_name, problem, line, column)), problem_(std::move(problem)),
      line_(line), column_(column), raised_(raised) {}

struct ParsedTemplate {
    Body body;
};

ChatTemplate::ChatTemplate(std::string_view source, std::string name)
    : name_(std::move(name)), parsed_(std::make_unique<ParsedTemplate>()) {
    try {
        parsed_->body = parse_template(tokenize_template(source, LexerOptions{}));
        check_body(parsed_->body);
    } catch (const TemplateFailure& failure) {
        throw TemplateError(name_, failure.what(), failure.line, failure.column, false);
    }
    takes_system_role_ = probe_capabilities(*this).system_role;
}

ChatTemplate::~ChatTemplate() = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;

std::string ChatTemplate::render_context(const nlohmann::ordered_json& context,
                                         const RenderOptions& options) const {
    if (!context.is_object())
        throw TemplateError(name_, "the template context must be a JSON object", 0, 0, false);
    try {
        Value values = from_json(context);
        GlobalOptions globals;
        globals.clock = options.clock;
        RenderLimits limits;
        limits.max_output_bytes = options.max_output_bytes;
        return run_template(parsed_->body, values.as_dict(), globals, limits);
    } catch (const TemplateFailure& failure) {
        throw TemplateError(name_, failure.what(), failure.line, failure.column, failure.raised);
    }
}

std::string ChatTemplate::render(const nlohmann::ordered_json& messages, const RenderOptions& options) const {
    if (!messages.is_array()) throw TemplateError(name_, "messages must be a JSON array", 0, 0, false);
    if (!options.extra_context.is_object())
        throw TemplateError(name_, "the extra context must be a JSON object", 0, 0, false);
    // `tools` and `documents` stay undefined unless the caller gives them, as llama.cpp leaves
    // them: a template's `{% for tool in tools %}` then loops zero times, where None would fail.
    nlohmann::ordered_json context = nlohmann::ordered_json::object();
    for (const auto& [key, value] : options.extra_context.items())
        context[key] = value;
    context["messages"] = messages;
    context["add_generation_prompt"] = options.add_generation_prompt;
    context["bos_token"] = options.bos_token;
    context["eos_token"] = options.eos_token;
    return render_context(context, options);
}

std::string ChatTemplate::render(const nlohmann::json& messages, const RenderOptions& options) const {
    return render(nlohmann::ordered_json::parse(messages.dump()), options);
}

std::string ChatTemplate::render_messages(std::span<const ChatMessage> messages,
                                          const RenderOptions& options) const {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const ChatMessage& m : messages) {
        nlohmann::ordered_json message = nlohmann::ordered_json::object();
        message["role"] = std::string(role_name(m.role));
        message["content"] = m.content;
        if (m.extra.is_object())
            for (const auto& [key, value] : m.extra.items())
                message[key] = value;
        list.push_back(std::move(message));
    }
    return render(list, options);
}

std::string ChatTemplate::render_conversation(std::span<const ChatMessage> messages,
                                              const RenderOptions& options) const {
    if (takes_system_role_ || messages.empty() || messages.front().role != Role::System)
        return render_messages(messages, options);
    return render_messages(fold_system_message(messages), options);
}

std::string_view default_chatml_template() {
    return "{%- for message in messages %}"
           "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
           "{%- endfor %}"
           "{%- if add_generation_prompt %}"
           "{{- '<|im_start|>assistant\\n' }}"
           "{%- endif %}";
}

} // namespace hearth::chat
