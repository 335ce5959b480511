#pragma once
// Stop strings over streamed text: text that could be the start of a stop string is
// held back until it is known not to be, and a stop string found ends the text just
// before it (the stop string itself is never returned, as with OpenAI).
#include <QString>
#include <QStringList>

namespace hearth::server {

class StopStrings {
public:
    explicit StopStrings(QStringList stops) : stops_(std::move(stops)) {}

    // Adds a piece; returns the text now safe to pass on (maybe empty).
    QString push(const QString& piece);
    // The text held back, at the end of generation without a stop string.
    QString flush();
    [[nodiscard]] bool stopped() const { return stopped_; }

private:
    QStringList stops_;
    QString pending_;
    bool stopped_ = false;
};

} // namespace hearth::server
