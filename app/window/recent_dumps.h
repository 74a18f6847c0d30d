// File > Open recent: the last dumps opened, newest first, remembered (QSettings dumps/recent).
#pragma once
#include <QMenu>

class RecentDumps : public QMenu {
    Q_OBJECT
public:
    static constexpr int kKept = 8;
    explicit RecentDumps(QWidget *parent = nullptr);
    void add(const QString &folder);

signals:
    void openRequested(const QString &folder);

private:
    void refresh();
};
