// Package gns3file reads and writes GNS3's project files: the .gns3
// topology (revisions 7 to 9, GNS3 2.0 to 2.2, with the quirks real files
// have) and the .gns3project archive that holds it with the files of the
// project's folder.
//
// It is an adapter between that format and the domain: reading gives an
// app.ProjectImport, whose records app.Service.ImportProject makes under
// the same rules as the API's; writing takes an app.ProjectExport and
// gives a file GNS3 2.2 imports (revision 9). Reading an archive is
// bounded (entries, bytes per file and in all, compression ratio) and
// never trusts the sizes an archive declares; where the files go, and the
// path rule they follow, is app's.
//
// It imports app and the standard library; app never imports it. The
// REST door (package api) calls it.
package gns3file
