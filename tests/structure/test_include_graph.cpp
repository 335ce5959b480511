// The include graph of the project, read from its #include lines: every folder that is a
// library (kernels/, engine/<component>/, app/<library>) includes only the libraries below it, so
// the arrows point one way (qml -> app -> engine -> kernels), and engine/ and kernels/ never
// include Qt. The graph it finds is printed.
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <map>
#include <set>

namespace {

// What each library may include besides itself: the libraries it links, and what they link.
const std::map<QString, std::set<QString>>& allowed_dependencies() {
    static const std::map<QString, std::set<QString>> allowed = [] {
        std::map<QString, std::set<QString>> direct{
            {"kernels", {}},
            {"engine/base", {}}, // engine/error.h, shared by every engine component
            {"engine/gguf", {"kernels", "engine/base"}},
            {"engine/synth", {"engine/gguf", "kernels", "engine/base"}},
            {"engine/tokenizer", {"engine/gguf", "engine/base"}},
            {"engine/chat", {"engine/base"}},
            {"engine/model", {"engine/gguf", "engine/tokenizer", "kernels", "engine/base"}},
            {"engine/forward", {"engine/model", "kernels", "engine/base"}},
            // Image input: projectors, image files, and the image positions of a forward pass.
            {"engine/vision",
             {"engine/forward", "engine/tokenizer", "engine/gguf", "engine/chat", "kernels", "engine/base"}},
            {"engine/sampling", {"engine/base"}},
            {"engine/grammar", {"engine/sampling", "engine/base"}},
            {"engine/session",
             {"engine/forward", "engine/vision", "engine/sampling", "engine/grammar", "engine/chat",
              "engine/model", "engine/base"}},
            {"engine/runtime", {"engine/session"}}, // one engine: model, forward pass, sessions
            {"engine/tools", {"engine/chat", "engine/grammar", "engine/base"}}, // function calls
            // Qt Core and Network only: termination signals, the data's paths, one app per profile.
            {"app/platform", {}},
            {"app/download", {}}, // Qt Core and Network only: the downloader knows no engine
            {"app/server", {"engine/runtime", "engine/tools"}}, // Qt Core and Network: the API server
            // The Qt glue, from the bottom up: the user's preferences and the conversation database
            // know nothing of the rest; the models (the loaded one and its worker thread, the
            // folder, the catalog, downloads) read the settings; the metrics panel reads the
            // worker's results; the chat, on top, wires everything behind the window.
            {"app/settings", {"engine/sampling", "engine/runtime"}},
            {"app/storage", {"engine/chat"}},
            {"app/tools", {"app/settings"}}, // MCP servers: their processes and the registry of them
            {"app/models", {"app/settings", "app/download", "app/server", "engine/runtime"}},
            {"app/metrics", {"app/models", "engine/session", "kernels"}},
            {"app/chat",
             {"app/metrics", "app/models", "app/storage", "app/settings", "app/platform", "app/server",
              "app/tools"}},
            {"app/cli",
             {"app/download", "app/platform", "app/server", "engine/runtime", "engine/synth", "engine/vision",
              "kernels"}},
            {"app/gui", {"app/chat", "app/platform"}},
        };
        // Close over the arrows: what a dependency may include, its dependents may too.
        for (bool grew = true; grew;) {
            grew = false;
            for (auto& [library, deps] : direct) {
                std::set<QString> closed = deps;
                for (const QString& dep : deps)
                    closed.insert(direct.at(dep).begin(), direct.at(dep).end());
                if (closed.size() != deps.size()) {
                    deps = closed;
                    grew = true;
                }
            }
        }
        return direct;
    }();
    return allowed;
}

// The library a project path ("engine/model/model.h") belongs to, or empty outside them.
QString library_of(const QString& path) {
    if (path.startsWith("kernels/")) return "kernels";
    const QStringList parts = path.split('/');
    if (parts.size() == 2 && parts[0] == "engine") return "engine/base";
    if (parts.size() >= 3 && (parts[0] == "engine" || parts[0] == "app")) return parts[0] + "/" + parts[1];
    return {};
}

struct IncludeGraph {
    std::map<QString, std::set<QString>> arrows; // library -> libraries it includes
    QStringList violations;
    int files = 0;
};

IncludeGraph read_graph(const QString& root) {
    IncludeGraph graph;
    // Plain strings: moc does not read raw string literals.
    static const QRegularExpression quoted("^\\s*#\\s*include\\s*\"([^\"]+)\"");
    static const QRegularExpression qt_header("^\\s*#\\s*include\\s*<(Q[A-Za-z]*|qcoro[^>]*)(/[^>]*)?>");
    for (const char* top : {"kernels", "engine", "app"}) {
        QDirIterator it(root + "/" + QString::fromLatin1(top), {"*.h", "*.cpp"}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            const QString relative = file.mid(root.size() + 1);
            const QString library = library_of(relative);
            if (library.isEmpty()) continue;
            ++graph.files;
            QFile in(file);
            if (!in.open(QIODevice::ReadOnly)) {
                graph.violations << relative + ": cannot be read";
                continue;
            }
            graph.arrows[library];
            const QStringList lines = QString::fromUtf8(in.readAll()).split('\n');
            for (int n = 0; n < lines.size(); ++n) {
                const QString where = QString("%1:%2").arg(relative).arg(n + 1);
                if ((library == "kernels" || library.startsWith("engine/")) &&
                    qt_header.match(lines[n]).hasMatch())
                    graph.violations << where + ": includes Qt (" + lines[n].trimmed() + ")";
                const QRegularExpressionMatch m = quoted.match(lines[n]);
                if (!m.hasMatch()) continue;
                const QString target = library_of(m.captured(1));
                if (target.isEmpty() || target == library) continue;
                graph.arrows[library].insert(target);
                const auto& allowed = allowed_dependencies().at(library);
                if (!allowed.count(target))
                    graph.violations << where + ": " + library + " includes " + m.captured(1) + " (" +
                                            target + " is not below it)";
            }
        }
    }
    return graph;
}

} // namespace

class TestIncludeGraph : public QObject {
    Q_OBJECT
private slots:
    void every_library_includes_only_what_is_below_it() {
        const IncludeGraph graph = read_graph(QStringLiteral(HEARTH_SOURCE_DIR));
        QVERIFY2(graph.files > 100, "the sources were not found");
        for (const auto& [library, targets] : graph.arrows) {
            QStringList names(targets.begin(), targets.end());
            qInfo("%s -> %s", qPrintable(library),
                  qPrintable(names.isEmpty() ? "(nothing)" : names.join(", ")));
        }
        QVERIFY2(graph.violations.isEmpty(), qPrintable(graph.violations.join("\n")));
        // Every library of the map was found: a renamed folder must be renamed here too.
        for (const auto& [library, deps] : allowed_dependencies())
            QVERIFY2(graph.arrows.count(library), qPrintable(library + " has no sources"));
    }

    // The checker sees a violation when there is one.
    void a_wrong_arrow_is_reported() {
        const QString root = QDir::tempPath() + "/hearth-include-graph";
        QDir(root).removeRecursively();
        QVERIFY(QDir().mkpath(root + "/kernels"));
        QVERIFY(QDir().mkpath(root + "/engine/model"));
        QFile bad(root + "/kernels/bad.cpp");
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("#include \"engine/model/model.h\"\n#include <QString>\n");
        bad.close();
        const IncludeGraph graph = read_graph(root);
        QCOMPARE(graph.violations.size(), 2);
        QDir(root).removeRecursively();
    }
};

QTEST_MAIN(TestIncludeGraph)
#include "test_include_graph.moc"
