//go:build (desktop || dev) && linux && !bindings

// Folder drops on the window, taken by GTK itself (see takeFolderDrops in
// desktop_gtk.go for why not by Wails or WebKit). The webview becomes a GTK
// drop site for text/uri-list only; its drag-drop asks for the data, whose
// arrival hands the first file:// URI's path to Go and finishes the drag.
// Every handler stops the signal there, so WebKit's own handlers (which would
// open the dropped folder in place of the app) never see these drags.

#include <gtk/gtk.h>

extern void loopforgeFolderDropped(char *path);

static GtkTargetEntry lfTargets[] = {{"text/uri-list", 0, 0}};

static gboolean lfMotion(GtkWidget *w, GdkDragContext *ctx, gint x, gint y, guint time, gpointer data)
{
    gboolean ok = gtk_drag_dest_find_target(w, ctx, NULL) != GDK_NONE;
    gdk_drag_status(ctx, ok ? GDK_ACTION_COPY : 0, time);
    g_signal_stop_emission_by_name(w, "drag-motion");
    return TRUE;
}

static void lfLeave(GtkWidget *w, GdkDragContext *ctx, guint time, gpointer data)
{
    g_signal_stop_emission_by_name(w, "drag-leave");
}

static gboolean lfDrop(GtkWidget *w, GdkDragContext *ctx, gint x, gint y, guint time, gpointer data)
{
    GdkAtom target = gtk_drag_dest_find_target(w, ctx, NULL);
    g_signal_stop_emission_by_name(w, "drag-drop");
    if (target == GDK_NONE)
    {
        gtk_drag_finish(ctx, FALSE, FALSE, time);
        return TRUE;
    }
    gtk_drag_get_data(w, ctx, target, time);
    return TRUE;
}

static void lfReceived(GtkWidget *w, GdkDragContext *ctx, gint x, gint y, GtkSelectionData *sel, guint info, guint time, gpointer data)
{
    gboolean ok = FALSE;
    gchar **uris = gtk_selection_data_get_uris(sel);
    if (uris != NULL && uris[0] != NULL)
    {
        gchar *path = g_filename_from_uri(uris[0], NULL, NULL);
        if (path != NULL)
        {
            loopforgeFolderDropped(path);
            g_free(path);
            ok = TRUE;
        }
    }
    g_strfreev(uris);
    g_signal_stop_emission_by_name(w, "drag-data-received");
    gtk_drag_finish(ctx, ok, FALSE, time);
}

static GtkWidget *lfFindWebView(GtkWidget *w)
{
    if (g_type_is_a(G_OBJECT_TYPE(w), g_type_from_name("WebKitWebView")))
        return w;
    if (!GTK_IS_CONTAINER(w))
        return NULL;
    GtkWidget *found = NULL;
    GList *children = gtk_container_get_children(GTK_CONTAINER(w));
    for (GList *l = children; l != NULL && found == NULL; l = l->next)
        found = lfFindWebView(GTK_WIDGET(l->data));
    g_list_free(children);
    return found;
}

// lfSetup runs on GTK's main loop: it makes the window's webview the drop site.
static gboolean lfSetup(gpointer data)
{
    GtkWidget *webview = NULL;
    GList *tops = gtk_window_list_toplevels();
    for (GList *l = tops; l != NULL && webview == NULL; l = l->next)
        webview = lfFindWebView(GTK_WIDGET(l->data));
    g_list_free(tops);
    if (webview == NULL)
        return G_SOURCE_CONTINUE; // not made yet: try again on the next idle turn
    gtk_drag_dest_set(webview, 0, lfTargets, G_N_ELEMENTS(lfTargets), GDK_ACTION_COPY);
    g_signal_connect(webview, "drag-motion", G_CALLBACK(lfMotion), NULL);
    g_signal_connect(webview, "drag-leave", G_CALLBACK(lfLeave), NULL);
    g_signal_connect(webview, "drag-drop", G_CALLBACK(lfDrop), NULL);
    g_signal_connect(webview, "drag-data-received", G_CALLBACK(lfReceived), NULL);
    return G_SOURCE_REMOVE;
}

void loopforgeTakeFolderDrops(void)
{
    g_idle_add(lfSetup, NULL);
}
