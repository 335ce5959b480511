#pragma once
// Errors of chat templates: syntax errors found while parsing and runtime errors
// (including raise_exception) found while rendering.
#include "engine/error.h"
#include <stdexcept>
#include <string>

namespace hearth::chat {

// What ChatTemplate throws: "<template name>:<line>:<column>: <problem>".
class TemplateError : public hearth::Error {
public:
    TemplateError(const std::string& template_name, std::string problem, int line, int column, bool raised);
    const std::string& problem() const { return problem_; }
    int line() const { return line_; }     // 1-based; 0 when unknown
    int column() const { return column_; } // 1-based; 0 when unknown
    // True when the template itself called raise_exception(message).
    bool raised_by_template() const { return raised_; }

private:
    std::string problem_;
    int line_ = 0;
    int column_ = 0;
    bool raised_ = false;
};

// Thrown inside the lexer, parser and interpreter; the innermost construct that
// knows its position fills it in, and ChatTemplate turns it into a TemplateError.
class TemplateFailure : public std::runtime_error {
public:
    explicit TemplateFailure(const std::string& problem, bool raised = false)
        : std::runtime_error(problem), raised(raised) {}
    TemplateFailure(const std::string& problem, int line, int column)
        : std::runtime_error(problem), line(line), column(column) {}
    bool located() const { return line > 0; }
    int line = 0;
    int column = 0;
    bool raised = false;
};

} // namespace hearth::chat
