#include "app/download/download.h"
#include "app/download/content_range.h"
#include "app/download/download_file_name.h"
#include "app/download/download_messages.h"
#include "app/download/file_sha256.h"
#include <QDir>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QStorageInfo>
#include <QtConcurrent/QtConcurrentRun>
#include <qcoro/qcorofuture.h>
#include <qcoro/qcoronetworkreply.h>

namespace hearth::download {

namespace {
// A stalled server fails the request after this long without a byte (Qt counts it
// per transfer, reset by every byte that arrives).
constexpr int kStallTimeoutMsecs = 60000;
} // namespace

Download::Download(QNetworkAccessManager* network, DownloadRequest request, QObject* parent)
    : QObject(parent), network_(network), request_(std::move(request)) {
    fileName_ = request_.fileName.isEmpty() ? fileNameFromUrl(request_.url) : request_.fileName;
    request_.sha256Hex = request_.sha256Hex.trimmed().toLower();
    resetHash();
}

Download::~Download() {
    ++generation_; // a coroutine resumed by the abort below returns without touching us
    stopTransfer();
}

QString Download::filePath() const {
    return QDir(request_.directory).filePath(fileName_);
}
QString Download::mismatchedFilePath() const {
    return QDir(request_.directory).filePath(mismatchedFileName(fileName_));
}

QString Download::partialFilePath() const {
    return QDir(request_.directory).filePath(partialFileName(fileName_));
}

void Download::start() {
    if (isActive()) return;
    error_.clear();
    run(++generation_);
}

void Download::pause() {
    if (!isActive()) return;
    ++generation_;
    stopTransfer();
    setNote(tr("paused at %1").arg(formatByteCount(received_)));
    setState(State::Paused);
    emit stopped();
}

void Download::cancel() {
    if (state_ == State::Finished || state_ == State::Cancelled) return;
    ++generation_;
    stopTransfer();
    QFile::remove(partialFilePath());
    resetHash();
    received_ = 0;
    emit progressChanged(received_, total_);
    setNote({});
    setState(State::Cancelled);
    emit stopped();
}

void Download::stopTransfer() {
    // Aborting emits finished() at once, which resumes the coroutine awaiting it; the
    // generation was bumped before, so that coroutine only lets go.
    if (QNetworkReply* reply = reply_) {
        reply_ = nullptr;
        reply->abort();
        reply->deleteLater();
    }
    part_.close();
}

void Download::resetHash() {
    hash_ = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
    hashedBytes_ = 0;
}

void Download::setState(State state) {
    if (state_ == state) return;
    state_ = state;
    emit stateChanged(state_);
}

void Download::setNote(const QString& note) {
    if (note_ == note) return;
    note_ = note;
    emit noteChanged(note_);
}

void Download::fail(const QString& message) {
    stopTransfer();
    error_ = message;
    // An empty partial file holds nothing to resume: leave no litter.
    const QFileInfo part(partialFilePath());
    if (part.exists() && part.size() == 0) QFile::remove(part.filePath());
    setState(State::Failed);
    emit stopped();
}

void Download::finish(bool checksumVerified) {
    checksumVerified_ = checksumVerified;
    if (received_ <= 0) received_ = QFileInfo(filePath()).size();
    if (total_ < 0) total_ = received_;
    emit progressChanged(received_, total_);
    setNote(checksumVerified ? tr("verified (SHA-256)")
                             : tr("complete; checksum unknown, only the size was checked"));
    setState(State::Finished);
    emit stopped();
}

QString Download::diskSpaceProblem(qint64 bytesStillNeeded) const {
    const QStorageInfo storage(request_.directory);
    if (!storage.isValid() || bytesStillNeeded <= 0) return {}; // unknown: writing will tell
    const qint64 available = storage.bytesAvailable();
    if (bytesStillNeeded <= available) return {};
    return tr("not enough disk space in %1: the download needs %2 more, and %3 is free")
        .arg(QDir::toNativeSeparators(request_.directory), formatByteCount(bytesStillNeeded),
             formatByteCount(available));
}

bool Download::openPartialFile(bool truncate) {
    part_.close();
    part_.setFileName(partialFilePath());
    const QIODevice::OpenMode mode =
        QIODevice::WriteOnly | (truncate ? QIODevice::Truncate : QIODevice::Append);
    if (part_.open(mode)) return true;
    answerError_ = tr("cannot write %1: %2").arg(part_.fileName(), part_.errorString());
    return false;
}

Download::Answer Download::acceptAnswer(QNetworkReply* reply) {
    const QVariant statusAttribute = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    const int status = statusAttribute.toInt();
    bool truncate = false;
    if (status == 206) {
        const auto range = parseContentRange(reply->rawHeader("Content-Range"));
        if (!range || range->first < 0) {
            answerError_ = tr("the server sent part of the file without saying which part");
            return Answer::Refused;
        }
        if (range->first != received_) return Answer::Restart; // not where we asked: start over
        total_ = range->total;
    } else if (status == 200) {
        // The whole file from its first byte: with a partial file, the server ignored Range.
        if (received_ > 0)
            setNote(tr("the server cannot resume downloads; starting again from the beginning"));
        truncate = true;
        resetHash();
        received_ = 0;
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        total_ = length.isValid() ? length.toLongLong() : -1;
    } else if (status == 416) {
        const auto range = parseContentRange(reply->rawHeader("Content-Range"));
        total_ = range ? range->total : -1;
        return Answer::RangeNotSatisfiable;
    } else {
        answerError_ = describeHttpStatus(
            status, reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString());
        return Answer::Refused;
    }
    if (total_ >= 0) {
        answerError_ = diskSpaceProblem(total_ - received_);
        if (!answerError_.isEmpty()) return Answer::Refused;
    }
    if (!openPartialFile(truncate)) return Answer::Refused;
    emit progressChanged(received_, total_);
    return Answer::Accepted;
}

void Download::writeArrivedBytes(QNetworkReply* reply, quint64 generation) {
    if (generation != generation_ || reply != reply_) return;
    if (!answered_) {
        answered_ = true;
        answer_ = acceptAnswer(reply);
        if (answer_ != Answer::Accepted) {
            // The coroutine awaiting the reply decides what comes next. An HTTP error
            // status ends by itself: Qt sets its error at the end, once (an abort
            // first would make it set two).
            if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() < 400) reply->abort();
            return;
        }
    }
    if (answer_ != Answer::Accepted) return;
    const QByteArray bytes = reply->readAll();
    if (bytes.isEmpty()) return;
    if (part_.write(bytes) != bytes.size()) {
        answerError_ = part_.error() == QFileDevice::ResourceError
                           ? tr("the disk is full: %1 could not be written")
                                 .arg(QDir::toNativeSeparators(part_.fileName()))
                           : tr("cannot write %1: %2").arg(part_.fileName(), part_.errorString());
        answer_ = Answer::Refused;
        reply->abort();
        return;
    }
    // Hashed as it is written, so the digest at the end covers exactly the file's bytes.
    hash_->addData(bytes);
    hashedBytes_ += bytes.size();
    received_ += bytes.size();
    rate_.record(received_);
    emit progressChanged(received_, total_);
}

QCoro::Task<bool> Download::verifyExistingFile(quint64 generation) {
    QPointer<Download> self(this);
    const QString path = filePath();
    const QByteArray expected = request_.sha256Hex;
    if (expected.isEmpty()) co_return true; // nothing to compare with: the file is taken as it is
    setNote(tr("checking the file already there"));
    // The future is made outside the co_await: GCC 12 destroys temporaries of a
    // co_await expression twice (here, the lambda's captures).
    QFuture<QByteArray> hashing = QtConcurrent::run([path] {
        QCryptographicHash hash(QCryptographicHash::Sha256);
        return addFileToHash(path, QFileInfo(path).size(), hash) ? hash.result().toHex() : QByteArray();
    });
    const QByteArray digest = co_await hashing;
    if (!self || generation != generation_) co_return false;
    co_return digest == expected;
}

QCoro::Task<bool> Download::rehashPartialFile(quint64 generation) {
    QPointer<Download> self(this);
    const QString path = partialFilePath();
    const qint64 size = QFileInfo(path).size();
    if (size == 0) {
        resetHash();
        received_ = 0;
        co_return true;
    }
    if (size == hashedBytes_) { // paused earlier in this process: the digest so far is still good
        received_ = size;
        co_return true;
    }
    setNote(tr("checking the %1 downloaded earlier").arg(formatByteCount(size)));
    auto hash = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
    QFuture<bool> hashing =
        QtConcurrent::run([path, size, hash] { return addFileToHash(path, size, *hash); });
    const bool read = co_await hashing; // not one expression: see verifyExistingFile
    if (!self || generation != generation_) co_return false;
    if (!read) {
        fail(tr("cannot read the partial file %1").arg(QDir::toNativeSeparators(path)));
        co_return false;
    }
    hash_ = hash;
    hashedBytes_ = size;
    received_ = size;
    co_return true;
}

QCoro::Task<> Download::run(quint64 generation) {
    QPointer<Download> self(this);
    const auto stale = [&] { return !self || generation != generation_; };
    setState(State::Preparing);
    checksumVerified_ = false;

    const QString scheme = request_.url.scheme();
    if (!request_.url.isValid() || (scheme != QLatin1String("http") && scheme != QLatin1String("https"))) {
        fail(tr("'%1' is not an http:// or https:// address").arg(request_.url.toString()));
        co_return;
    }
    if (const QString problem = fileNameProblem(fileName_); !problem.isEmpty()) {
        fail(problem);
        co_return;
    }
    if (!request_.sha256Hex.isEmpty() && !isSha256Hex(request_.sha256Hex)) {
        fail(tr("the SHA-256 must be 64 hexadecimal digits"));
        co_return;
    }
    if (!QDir().mkpath(request_.directory)) {
        fail(tr("cannot create the folder %1").arg(QDir::toNativeSeparators(request_.directory)));
        co_return;
    }
    if (QFileInfo::exists(filePath())) {
        const bool same = co_await verifyExistingFile(generation);
        if (stale()) co_return;
        if (!same) {
            fail(tr("%1 already exists and is a different file; move it away to download it again")
                     .arg(QDir::toNativeSeparators(filePath())));
            co_return;
        }
        received_ = total_ = QFileInfo(filePath()).size();
        finish(!request_.sha256Hex.isEmpty());
        co_return;
    }
    const bool rehashed = co_await rehashPartialFile(generation);
    if (stale() || !rehashed) co_return;
    resumedFrom_ = received_;
    if (request_.expectedBytes > 0) {
        if (const QString problem = diskSpaceProblem(request_.expectedBytes - received_);
            !problem.isEmpty()) {
            fail(problem);
            co_return;
        }
    }

    rate_.restart();
    rate_.record(received_);
    int reconnectsLeft = std::max(0, request_.reconnects);
    bool startedOver = false; // one fresh start is allowed when the partial file proves useless
    for (;;) {
        QNetworkRequest httpRequest(request_.url);
        // Byte offsets must be the file's own: no transparent decompression.
        httpRequest.setRawHeader("Accept-Encoding", "identity");
        httpRequest.setTransferTimeout(kStallTimeoutMsecs);
        if (received_ > 0) {
            httpRequest.setRawHeader("Range", "bytes=" + QByteArray::number(received_) + "-");
            setNote(tr("resuming at %1").arg(formatByteCount(received_)));
        }
        answered_ = false;
        answer_ = Answer::Accepted;
        answerError_.clear();
        QNetworkReply* reply = network_->get(httpRequest);
        reply_ = reply;
        connect(reply, &QNetworkReply::readyRead, this,
                [this, reply, generation] { writeArrivedBytes(reply, generation); });
        setState(State::Running);

        co_await reply;
        if (stale()) co_return; // paused, cancelled or destroyed: they cleaned up
        reply_ = nullptr;
        reply->deleteLater();
        const bool httpAnswered = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).isValid();
        if (!answered_ && httpAnswered) {
            answered_ = true;
            answer_ = acceptAnswer(reply);
        }
        part_.close();

        if (answer_ == Answer::Refused) {
            fail(answerError_);
            co_return;
        }
        if (answer_ == Answer::Restart || answer_ == Answer::RangeNotSatisfiable) {
            // A 416 after a run that stopped between the last byte and the rename: the
            // partial file may be the whole file already.
            if (answer_ == Answer::RangeNotSatisfiable && total_ == received_) break;
            if (startedOver) {
                fail(tr("the server does not send the part of the file that was asked for"));
                co_return;
            }
            startedOver = true;
            QFile::remove(partialFilePath());
            resetHash();
            received_ = 0;
            setNote(tr("the partial file did not fit the server's file; starting again"));
            continue;
        }
        const QNetworkReply::NetworkError error = reply->error();
        // Fewer bytes than announced is a dropped connection even when Qt saw no error.
        const bool shortBody = error == QNetworkReply::NoError && total_ >= 0 && received_ < total_;
        if (error == QNetworkReply::NoError && !shortBody) break;
        const QString what = shortBody ? tr("the server sent %1 of %2 and stopped")
                                             .arg(formatByteCount(received_), formatByteCount(total_))
                                       : describeNetworkError(error, request_.url.host());
        if ((shortBody || isWorthReconnecting(error)) && reconnectsLeft > 0) {
            --reconnectsLeft;
            setNote(tr("%1; reconnecting").arg(what));
            continue;
        }
        fail(received_ > 0 ? tr("%1 (%2 kept; start again to resume)").arg(what, formatByteCount(received_))
                           : what);
        co_return;
    }

    setState(State::Verifying);
    const QByteArray digest = hash_->result().toHex();
    if (!request_.sha256Hex.isEmpty() && digest != request_.sha256Hex) {
        // Kept for inspection under a name that is neither a model the picker lists nor a partial
        // file a resume appends to: wrong bytes are no basis for either.
        const QString kept = mismatchedFilePath();
        QFile::remove(kept);
        const bool keptIt = QFile::rename(partialFilePath(), kept);
        if (!keptIt) QFile::remove(partialFilePath());
        resetHash();
        received_ = 0;
        const QString expected = QString::fromLatin1(request_.sha256Hex),
                      received = QString::fromLatin1(digest);
        fail(keptIt
                 ? tr("checksum mismatch: expected SHA-256 %1, received %2; the received file is kept as %3 "
                      "for inspection and is not loaded")
                       .arg(expected, received, QDir::toNativeSeparators(kept))
                 : tr("checksum mismatch: expected SHA-256 %1, received %2; the received file was deleted")
                       .arg(expected, received));
        co_return;
    }
    if (total_ >= 0 && received_ != total_) {
        fail(tr("the file has %1 bytes, the server announced %2").arg(received_).arg(total_));
        co_return;
    }
    if (!QFile::rename(partialFilePath(), filePath())) {
        fail(tr("cannot rename %1 to %2").arg(partialFilePath(), fileName_));
        co_return;
    }
    finish(!request_.sha256Hex.isEmpty());
}

} // namespace hearth::download
