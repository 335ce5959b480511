#pragma once
// The rows `hearth-cli logits` prints for a reference line (one line of n_vocab logits per step),
// added to a reference error, for the command-line suites that hold its output to the rule.
#include "tests/support/reference_logits.h"
#include <QString>
#include <QStringList>
#include <QTest>
#include <cmath>
#include <string>
#include <vector>

namespace hearth::test {

// Adds each step's printed logits to `error`; output of another shape or a word that is not a
// finite number fails the calling test (check QTest::currentTestFailed() after).
inline void add_printed_logits(const QString& out, const ReferenceLine& line, int n_vocab,
                               TopFiveError& error) {
    const QStringList rows = out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(static_cast<size_t>(rows.size()), line.steps.size());
    for (size_t s = 0; s < line.steps.size(); ++s) {
        const QStringList words = rows[static_cast<qsizetype>(s)].split(' ');
        QCOMPARE(words.size(), n_vocab);
        std::vector<float> logits(static_cast<size_t>(n_vocab));
        for (int v = 0; v < n_vocab; ++v) {
            bool ok = false;
            logits[static_cast<size_t>(v)] = words[v].toFloat(&ok);
            QVERIFY2(ok && std::isfinite(logits[static_cast<size_t>(v)]), qPrintable(words[v]));
        }
        error.set_location("\"" + line.prompt + "\", step " + std::to_string(s));
        error.add_step(line.steps[s], logits);
    }
}

} // namespace hearth::test
