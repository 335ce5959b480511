#include "app/storage/conversation_export_markdown.h"
#include <QCoreApplication>
#include <QLocale>

namespace hearth::app {

namespace {
QString when(const QDateTime& time) {
    return time.isValid() ? QLocale().toString(time, QLocale::ShortFormat) : QString();
}

QString author(const MessageRecord& m) {
    switch (m.role) {
    case chat::Role::System:
        return ConversationExport::tr("System");
    case chat::Role::User:
        return ConversationExport::tr("You");
    case chat::Role::Assistant:
        return m.model.isEmpty() ? ConversationExport::tr("Assistant")
                                 : ConversationExport::tr("Assistant (%1)").arg(m.model);
    case chat::Role::Tool:
        return ConversationExport::tr("Tool");
    }
    return ConversationExport::tr("Assistant");
}

// A title on one line, without characters that would end the heading early.
QString headingText(const QString& title) {
    const QString line = title.simplified();
    return line.isEmpty() ? ConversationExport::tr("Untitled conversation") : line;
}

// A reply stopped inside a code block leaves its fence open, which would make code of everything
// after it: the fence is closed.
QString closedFences(const QString& content) {
    int fences = 0;
    for (const QString& line : content.split(QLatin1Char('\n')))
        if (line.trimmed().startsWith(QLatin1String("```"))) ++fences;
    return fences % 2 == 0 ? content : content + QStringLiteral("\n```");
}

// An image's name as Markdown's image text: on one line, without the brackets that would end it.
QString imageText(const QString& name) {
    QString text;
    for (const QChar c : name.simplified()) {
        if (c == QLatin1Char('\\') || c == QLatin1Char('[') || c == QLatin1Char(']'))
            text += QLatin1Char('\\');
        text += c;
    }
    return text.isEmpty() ? ConversationExport::tr("image") : text;
}

void appendConversation(QString& out, const ConversationBundle& bundle) {
    const ConversationRecord& c = bundle.conversation;
    out += QStringLiteral("# ") + headingText(c.title) + QStringLiteral("\n\n");
    out += QStringLiteral("*") +
           ConversationExport::tr("Started %1, last message %2").arg(when(c.createdAt), when(c.updatedAt)) +
           QStringLiteral("*\n\n");
    for (const MessageRecord& m : chosenPath(bundle.messages)) { // the branch the conversation shows
        out += QStringLiteral("## ") + author(m);
        if (m.createdAt.isValid()) out += QStringLiteral(" · ") + when(m.createdAt);
        out += QStringLiteral("\n\n");
        for (const MessageImage& image : m.images) // before the text, as the model reads them
            out += QStringLiteral("![%1](%2)\n\n").arg(imageText(image.name), imageAddress(image));
        if (!m.content.trimmed().isEmpty())
            out += closedFences(m.content.trimmed()) + QStringLiteral("\n\n");
        else if (m.images.isEmpty())
            out += QStringLiteral("*") + ConversationExport::tr("(empty)") + QStringLiteral("*\n\n");
        if (m.state == MessageState::Stopped)
            out += QStringLiteral("*") + ConversationExport::tr("(stopped before the end)") +
                   QStringLiteral("*\n\n");
        else if (m.state == MessageState::Failed)
            out += QStringLiteral("*") + ConversationExport::tr("(failed)") + QStringLiteral("*\n\n");
    }
}
} // namespace

QString imageAddress(const MessageImage& image) {
    return QStringLiteral("sha256:") + image.sha256;
}

QString conversationsToMarkdown(const QList<ConversationBundle>& conversations) {
    QString out;
    for (qsizetype i = 0; i < conversations.size(); ++i) {
        if (i > 0) out += QStringLiteral("---\n\n");
        appendConversation(out, conversations.at(i));
    }
    return out;
}

} // namespace hearth::app
