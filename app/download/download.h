#pragma once
// One file fetched over HTTP(S) into a folder: streamed into NAME.part while
// SHA-256 is computed, resumed with a Range request (after a pause, a dropped
// connection, or a restart of the program: the partial file is the only state),
// and renamed to NAME only once verified. Shared by the app and hearth-cli.
//
// Lives on one thread (the one its QNetworkAccessManager lives on); re-hashing a
// partial file on resume runs on the Qt Concurrent pool.
#include "app/download/download_request.h"
#include "app/download/transfer_rate.h"
#include <QCryptographicHash>
#include <QFile>
#include <QObject>
#include <QPointer>
#include <memory>
#include <qcoro/qcorotask.h>

class QNetworkAccessManager;
class QNetworkReply;

namespace hearth::download {

class Download : public QObject {
    Q_OBJECT

public:
    enum class State {
        Idle,      // not started
        Preparing, // checking the folder, re-hashing a partial file
        Running,   // bytes are arriving
        Verifying, // comparing the digest
        Paused,    // stopped by pause(); the partial file is kept
        Finished,  // the file is in place and verified
        Failed,    // errorMessage() says why; the partial file is kept unless it was wrong
        Cancelled, // stopped by cancel(); the partial file is deleted
    };
    Q_ENUM(State)

    Download(QNetworkAccessManager* network, DownloadRequest request, QObject* parent = nullptr);
    ~Download() override;

    // Starts, or resumes after a pause or a failure. Does nothing while running.
    void start();
    // Stops the transfer and keeps the partial file, for start() to resume.
    void pause();
    // Stops the transfer and deletes the partial file.
    void cancel();

    [[nodiscard]] State state() const { return state_; }
    [[nodiscard]] bool isActive() const {
        return state_ == State::Preparing || state_ == State::Running || state_ == State::Verifying;
    }
    [[nodiscard]] const DownloadRequest& request() const { return request_; }
    [[nodiscard]] QString fileName() const { return fileName_; }
    [[nodiscard]] QString filePath() const;
    [[nodiscard]] QString partialFilePath() const;
    [[nodiscard]] QString mismatchedFilePath() const; // the received bytes of a checksum mismatch
    [[nodiscard]] qint64 receivedBytes() const { return received_; }
    [[nodiscard]] qint64 totalBytes() const { return total_; } // -1 while unknown
    [[nodiscard]] qint64 resumedFromBytes() const { return resumedFrom_; }
    [[nodiscard]] double bytesPerSecond() const { return rate_.bytesPerSecond(); }
    [[nodiscard]] double secondsLeft() const { return rate_.secondsLeft(received_, total_); }
    [[nodiscard]] QString errorMessage() const { return error_; }
    // True once finished against a SHA-256; false when only the size could be checked.
    [[nodiscard]] bool checksumVerified() const { return checksumVerified_; }
    // What happened last, in plain words ("resuming at 1.2 GB", "the server ignored ...").
    [[nodiscard]] QString note() const { return note_; }

signals:
    void stateChanged(hearth::download::Download::State state);
    void progressChanged(qint64 received, qint64 total);
    void noteChanged(const QString& note);
    // Finished, Failed, Paused or Cancelled: the transfer has stopped.
    void stopped();

private:
    enum class Answer { Accepted, Restart, RangeNotSatisfiable, Refused };

    QCoro::Task<> run(quint64 generation);
    QCoro::Task<bool> rehashPartialFile(quint64 generation);
    QCoro::Task<bool> verifyExistingFile(quint64 generation);
    Answer acceptAnswer(QNetworkReply* reply);
    void writeArrivedBytes(QNetworkReply* reply, quint64 generation);
    // Empty when there is room for `bytesStillNeeded` more bytes, else why not.
    [[nodiscard]] QString diskSpaceProblem(qint64 bytesStillNeeded) const;
    bool openPartialFile(bool truncate);
    void finish(bool checksumVerified);
    void fail(const QString& message);
    void setState(State state);
    void setNote(const QString& note);
    void resetHash();
    void stopTransfer();

    QNetworkAccessManager* network_;
    DownloadRequest request_;
    QString fileName_;
    State state_ = State::Idle;
    quint64 generation_ = 0; // bumped by pause/cancel/destruction: a running coroutine then lets go
    QPointer<QNetworkReply> reply_;
    QFile part_;
    // The digest of the first hashedBytes_ bytes of the partial file; kept across a
    // pause in this process, rebuilt from the file otherwise.
    std::shared_ptr<QCryptographicHash> hash_;
    qint64 hashedBytes_ = 0;
    qint64 received_ = 0; // bytes in the partial file, this run and earlier ones
    qint64 total_ = -1;
    qint64 resumedFrom_ = 0;
    // The answer to the request under way, judged at its first bytes (or at its end).
    bool answered_ = false;
    Answer answer_ = Answer::Accepted;
    QString answerError_; // why, when the answer is Refused
    TransferRate rate_;
    QString error_;
    QString note_;
    bool checksumVerified_ = false;
};

} // namespace hearth::download
