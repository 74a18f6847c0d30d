#include "app/window/recent_dumps.h"

#include <QSettings>

RecentDumps::RecentDumps(QWidget *parent) : QMenu(tr("Open &recent"), parent)
{
    refresh();
}

void RecentDumps::add(const QString &folder)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("dumps/recent")).toStringList();
    recent.removeAll(folder);
    recent.prepend(folder);
    while (recent.size() > kKept)
        recent.removeLast();
    settings.setValue(QStringLiteral("dumps/recent"), recent);
    refresh();
}

void RecentDumps::refresh()
{
    clear();
    const QStringList recent = QSettings().value(QStringLiteral("dumps/recent")).toStringList();
    for (const QString &f : recent)
        addAction(f, this, [this, f] { emit openRequested(f); });
    setEnabled(!recent.isEmpty());
}
